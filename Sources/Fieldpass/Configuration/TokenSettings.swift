import FieldpassDomain

/// How device tokens are signed and for how long they live.
///
/// Keys: `tokens.keys_dir` (default `Keys`; PEM private keys, see `KeySchedule` for which
/// signs), `tokens.key_publish_delay` (seconds a new key is published before it signs,
/// default 600),
/// `tokens.audience` (default `realm-sync`), `tokens.access_token_ttl` (seconds, default 900),
/// `tokens.refresh_token_ttl` (seconds, default 30 days; each rotation starts it again),
/// `tokens.refresh_token_max_lifetime` (seconds from the sign-in, default 90 days; no
/// rotation goes past it), `tokens.refresh_reuse_grace` (seconds, default 0, at most 300:
/// a retry with a just-rotated refresh token within it gets the same successor).
public struct TokenSettings: Sendable {
    /// Folder of PEM private keys.
    public var keysDirectory: String
    /// `aud` of every access token.
    public var audience: String
    /// Access token lifetime in seconds.
    public var accessTokenTTL: Int
    /// Refresh token lifetime in seconds.
    public var refreshTokenTTL: Int
    /// Absolute refresh lifetime in seconds, counted from the sign-in.
    public var refreshTokenMaxLifetime: Int
    /// Seconds during which a rotated refresh token may be retried.
    public var refreshReuseGrace: Int
    /// Seconds a new key is published before it signs, so verifiers caching the JWKS have it first.
    public var keyPublishDelay: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        keysDirectory = try settings.string(["tokens", "keys_dir"], default: "Keys")
        audience = try settings.string(["tokens", "audience"], default: "realm-sync")
        accessTokenTTL = try settings.int(["tokens", "access_token_ttl"], default: 900, in: 60...86_400)
        refreshTokenTTL = try settings.int(["tokens", "refresh_token_ttl"], default: 2_592_000, in: 3600...31_536_000)
        refreshTokenMaxLifetime = try settings.int(
            ["tokens", "refresh_token_max_lifetime"], default: 7_776_000, in: 3600...31_536_000
        )
        keyPublishDelay = try settings.int(["tokens", "key_publish_delay"], default: 600, in: 0...604_800)
        refreshReuseGrace = try settings.int(["tokens", "refresh_reuse_grace"], default: 0, in: 0...TokenPurge.maxRefreshReuseGrace)
    }
}
