public import Foundation
public import Tokens

/// Mints a device's access token and refresh token.
public struct TokenIssuer: Sendable {
    private let signer: JWTSigner
    private let issuer: String
    private let settings: TokenSettings

    /// Signs with the key ring's current key.
    public init(keyRing: KeyRing, issuer: String, settings: TokenSettings) {
        self.signer = JWTSigner(key: keyRing.signingKey)
        self.issuer = issuer
        self.settings = settings
    }

    /// Tokens for `session`'s user and device, ready to be stored.
    public func issue(for session: OnboardingSession, idpSubject: String, now: Date) throws(TokenError) -> CompletedLogin {
        let issuedAt = Int(now.timeIntervalSince1970)
        let claims = AccessTokenClaims(
            iss: issuer, sub: session.userID, aud: settings.audience,
            iat: issuedAt, nbf: issuedAt, exp: issuedAt + settings.accessTokenTTL,
            jti: try Crypto.randomToken(byteCount: 16),
            email: session.email, env: session.environmentID, role: session.role,
            deviceID: session.deviceID,
            realms: RealmPermissions.defaults(role: session.role, userID: session.userID)
        )
        let refreshToken = try Crypto.randomToken(byteCount: 32)
        return CompletedLogin(
            session: session, idpSubject: idpSubject,
            accessToken: try signer.sign(claims), accessTokenTTL: settings.accessTokenTTL,
            refreshToken: refreshToken,
            refreshTokenHash: Crypto.base64URLEncode(Crypto.sha256(Array(refreshToken.utf8))),
            refreshTokenExpiresAt: now.addingTimeInterval(TimeInterval(settings.refreshTokenTTL))
        )
    }
}
