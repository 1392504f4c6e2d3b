public import FieldpassDomain
public import Foundation
public import Tokens

/// Mints access tokens for devices and service accounts, and refresh tokens for devices.
public struct TokenIssuer: Sendable {
    private let keys: KeyRotation
    private let issuer: String
    private let settings: TokenSettings
    private let policy: RealmPolicy
    /// `dpop.bind_access_tokens`: whether a device's access token is bound to the key its
    /// refresh token is bound to, or stays a bearer token that any sync server takes.
    private let bindsAccessTokens: Bool

    /// Signs with the key that signs at the moment of signing.
    public init(keys: KeyRotation, issuer: String, settings: TokenSettings, policy: RealmPolicy, bindsAccessTokens: Bool = false) {
        self.keys = keys
        self.issuer = issuer
        self.settings = settings
        self.policy = policy
        self.bindsAccessTokens = bindsAccessTokens
    }

    /// Seconds an access token lives.
    public var accessTokenTTL: Int { settings.accessTokenTTL }

    /// Tokens for a session's device, ready to be stored. Refreshing ends at the latest
    /// `refresh_token_max_lifetime` after this sign-in.
    /// `shift`: the shift the sign-in starts on a shared device, which the tokens name.
    public func issue(
        for session: OnboardingSession, facts: AccessFacts, shift: ShiftRecord? = nil, now: Date
    ) throws(TokenError) -> CompletedLogin {
        let refresh = try refreshToken()
        let window = refreshWindow(from: now)
        let access = try deviceAccessToken(
            facts: facts, deviceID: session.deviceID, deviceKey: session.dpopThumbprint, shift: shift, now: now)
        return CompletedLogin(
            session: session, accessToken: access.token, accessTokenType: access.type, accessTokenTTL: settings.accessTokenTTL,
            refreshToken: refresh.token, refreshTokenHash: refresh.hash, refreshTokenExpiresAt: window.expiresAt,
            refreshTokenMaxExpiresAt: window.maxExpiresAt, shift: shift
        )
    }

    /// When a sign-in's first refresh token at `now` expires, and when refreshing ends at the
    /// latest (`refresh_token_max_lifetime` after it).
    public func refreshWindow(from now: Date) -> (expiresAt: Date, maxExpiresAt: Date) {
        let maxExpiry = now.addingTimeInterval(TimeInterval(settings.refreshTokenMaxLifetime))
        return (min(now.addingTimeInterval(TimeInterval(settings.refreshTokenTTL)), maxExpiry), maxExpiry)
    }

    /// A device's access token with the person's current realms, and its `token_type`.
    /// `deviceKey`: the thumbprint of the key the device's refresh token is bound to, which
    /// binds the access token too when ``bindsAccessTokens``. A shift's token names the shift
    /// and, as its device, the shared device; it is always bound to the shared device's key,
    /// and says the shift's `amr` (a badge sign-in's).
    public func deviceAccessToken(
        facts: AccessFacts, deviceID: String, deviceKey: String? = nil, shift: ShiftRecord? = nil, now: Date
    ) throws(TokenError) -> (token: String, type: String) {
        let boundTo = bindsAccessTokens || shift != nil ? deviceKey : nil
        let token = try sign(
            subject: facts.user.id, environmentID: facts.user.environmentID, role: facts.user.role.rawValue,
            email: facts.user.email, deviceID: shift?.sharedDeviceID ?? deviceID, shiftID: shift?.id, realms: policy.realms(for: facts),
            boundTo: boundTo, amr: shift?.amr, now: now
        )
        return (token, KeyConfirmation.tokenType(boundTo: boundTo))
    }

    /// A backend integration's access token, scoped to its environment.
    public func serviceAccessToken(accountID: String, environmentID: String, now: Date) throws(TokenError) -> String {
        try sign(
            subject: "service:\(accountID)", environmentID: environmentID, role: AccessTokenClaims.serviceRole,
            email: nil, deviceID: nil, shiftID: nil, realms: policy.serviceAccountRealms(environmentID: environmentID), boundTo: nil,
            amr: nil, now: now
        )
    }

    /// Seconds a refresh token lives, each rotation counting anew (never past the sign-in's maximum).
    public var refreshTokenTTL: Int { settings.refreshTokenTTL }

    /// Seconds within which a just-rotated refresh token may be retried.
    public var refreshReuseGrace: Int { settings.refreshReuseGrace }

    /// A new random refresh token and its hash, the only form stored.
    public func refreshToken() throws(TokenError) -> (token: String, hash: String) {
        let token = try Crypto.randomToken(byteCount: 32)
        return (token, Self.hash(refreshToken: token))
    }

    /// SHA-256 of a refresh token, base64url.
    public static func hash(refreshToken: String) -> String {
        OpaqueToken.digest(refreshToken)
    }

    /// Seals a successor refresh token under a key that only the holder of `previous` can
    /// derive (the store keeps only its hash), for retries within the grace.
    public static func seal(successor: String, previous: String) throws(TokenError) -> [UInt8] {
        try SealedBox.seal(Array(successor.utf8), key: successorKey(previous))
    }

    /// The successor sealed by ``seal(successor:previous:)``, or `nil` if `previous` is not its key.
    public static func openSuccessor(_ sealed: [UInt8], previous: String) -> String? {
        SealedBox.open(sealed, key: successorKey(previous)).flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// Domain-separated from the stored hash, so the hash never opens the box.
    private static func successorKey(_ previous: String) -> [UInt8] {
        Crypto.sha256(Array("fieldpass refresh successor\u{0}".utf8) + Array(previous.utf8))
    }

    private func sign(
        subject: String, environmentID: String, role: String, email: String?, deviceID: String?, shiftID: String?,
        realms: [String: RealmAccess], boundTo: String?, amr: [String]?, now: Date
    ) throws(TokenError) -> String {
        let issuedAt = Int(now.timeIntervalSince1970)
        return try keys.published(now: now).signer.sign(
            AccessTokenClaims(
                iss: issuer, sub: subject, aud: settings.audience, iat: issuedAt, nbf: issuedAt,
                exp: issuedAt + settings.accessTokenTTL, jti: try Crypto.randomToken(byteCount: 16),
                email: email, env: environmentID, role: role, deviceID: deviceID, shiftID: shiftID, realms: realms,
                cnf: boundTo.map(KeyConfirmation.init(jkt:)), amr: amr
            )
        )
    }
}
