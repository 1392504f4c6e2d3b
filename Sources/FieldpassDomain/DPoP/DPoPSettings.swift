/// The server's DPoP settings (the configuration's top-level `dpop:` block), in seconds.
public struct DPoPSettings: Sendable, Equatable {
    /// Whether proofs must carry a nonce the server gave (`use_dpop_nonce` until they do).
    public var nonce: Bool
    /// Whether access tokens are bound too; refresh tokens of a proven registration always are.
    public var bindAccessTokens: Bool
    /// How long after its `iat` a proof is accepted.
    public var proofLifetime: Int
    /// How far the device's clock may be ahead of or behind the server's.
    public var clockSkew: Int

    public init(nonce: Bool = false, bindAccessTokens: Bool = false, proofLifetime: Int = 60, clockSkew: Int = 5) {
        self.nonce = nonce
        self.bindAccessTokens = bindAccessTokens
        self.proofLifetime = proofLifetime
        self.clockSkew = clockSkew
    }
}
