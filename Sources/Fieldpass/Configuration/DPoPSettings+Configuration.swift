import FieldpassDomain

/// Keys: `dpop.proof_lifetime` (seconds after its `iat` a proof is accepted, default 60) and
/// `dpop.clock_skew` (seconds a device's clock may be off, default 5).
extension DPoPSettings {
    init(_ settings: SettingsReader) throws(ConfigurationError) {
        self.init(
            proofLifetime: try settings.int(["dpop", "proof_lifetime"], default: 60, in: 1...600),
            clockSkew: try settings.int(["dpop", "clock_skew"], default: 5, in: 0...300))
    }
}
