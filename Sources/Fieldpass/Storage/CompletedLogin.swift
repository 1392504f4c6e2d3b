public import Foundation

/// A successful sign-in, ready to be stored: the tokens for the device and the IdP identity.
public struct CompletedLogin: Sendable {
    public var session: OnboardingSession
    /// The IdP's `sub` for this user.
    public var idpSubject: String
    public var accessToken: String
    public var accessTokenTTL: Int
    public var refreshToken: String
    /// SHA-256 of the refresh token, base64url; the only form of it that is kept.
    public var refreshTokenHash: String
    public var refreshTokenExpiresAt: Date

    public init(
        session: OnboardingSession, idpSubject: String, accessToken: String, accessTokenTTL: Int,
        refreshToken: String, refreshTokenHash: String, refreshTokenExpiresAt: Date
    ) {
        self.session = session
        self.idpSubject = idpSubject
        self.accessToken = accessToken
        self.accessTokenTTL = accessTokenTTL
        self.refreshToken = refreshToken
        self.refreshTokenHash = refreshTokenHash
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
    }
}
