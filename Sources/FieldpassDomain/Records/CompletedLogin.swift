public import Foundation

/// A successful sign-in, ready to be stored: the tokens for the device.
public struct CompletedLogin: Sendable {
    public var session: OnboardingSession
    public var accessToken: String
    /// `Bearer`, or `DPoP` for an access token bound to the device's key.
    public var accessTokenType: String
    public var accessTokenTTL: Int
    public var refreshToken: String
    /// SHA-256 of the refresh token, base64url; the only form of it that is kept.
    public var refreshTokenHash: String
    public var refreshTokenExpiresAt: Date
    /// The absolute end of refreshing for this sign-in; no rotation goes past it.
    public var refreshTokenMaxExpiresAt: Date
    /// The shift the sign-in starts on a shared device, which its tokens name.
    public var shift: ShiftRecord?

    public init(
        session: OnboardingSession, accessToken: String, accessTokenType: String = "Bearer", accessTokenTTL: Int,
        refreshToken: String, refreshTokenHash: String, refreshTokenExpiresAt: Date, refreshTokenMaxExpiresAt: Date,
        shift: ShiftRecord? = nil
    ) {
        self.shift = shift
        self.session = session
        self.accessToken = accessToken
        self.accessTokenType = accessTokenType
        self.accessTokenTTL = accessTokenTTL
        self.refreshToken = refreshToken
        self.refreshTokenHash = refreshTokenHash
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.refreshTokenMaxExpiresAt = refreshTokenMaxExpiresAt
    }
}
