import FieldpassDomain

/// Keys: `dpop.nonce` (proofs must carry a nonce the server gave, default false),
/// `dpop.bind_access_tokens` (a bound registration's access tokens are bound too, default
/// false), `dpop.proof_lifetime` (seconds after its `iat` a proof is accepted, default 60)
/// and `dpop.clock_skew` (seconds a device's clock may be off, default 5).
extension DPoPSettings {
    init(_ settings: SettingsReader) throws(ConfigurationError) {
        self.init(
            nonce: try settings.bool(["dpop", "nonce"], default: false),
            bindAccessTokens: try settings.bool(["dpop", "bind_access_tokens"], default: false),
            proofLifetime: try settings.int(["dpop", "proof_lifetime"], default: 60, in: 1...600),
            clockSkew: try settings.int(["dpop", "clock_skew"], default: 5, in: 0...300))
    }
}
