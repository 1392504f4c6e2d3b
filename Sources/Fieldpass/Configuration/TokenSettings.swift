/// How device tokens are signed and for how long they live.
///
/// Keys: `tokens.keys_dir` (default `Keys`; PEM private keys, the newest signs),
/// `tokens.audience` (default `realm-sync`), `tokens.access_token_ttl` (seconds, default 900),
/// `tokens.refresh_token_ttl` (seconds, default 30 days).
public struct TokenSettings: Sendable {
    /// Folder of PEM private keys.
    public var keysDirectory: String
    /// `aud` of every access token.
    public var audience: String
    /// Access token lifetime in seconds.
    public var accessTokenTTL: Int
    /// Refresh token lifetime in seconds.
    public var refreshTokenTTL: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        keysDirectory = try settings.string(["tokens", "keys_dir"], default: "Keys")
        audience = try settings.string(["tokens", "audience"], default: "realm-sync")
        accessTokenTTL = try settings.int(["tokens", "access_token_ttl"], default: 900, in: 60...86_400)
        refreshTokenTTL = try settings.int(["tokens", "refresh_token_ttl"], default: 2_592_000, in: 3600...31_536_000)
    }
}
