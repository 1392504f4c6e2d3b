/// Why a DPoP proof was refused: one of a few reasons, so that a metric's labels stay
/// bounded; the `detail` says more for the log, never the proof itself.
public struct DPoPRefusal: Error, Sendable, Equatable {
    public enum Reason: String, Sendable, CaseIterable {
        /// No proof where one is needed, or more than one.
        case missing
        /// Not one well-formed JWS of `typ` `dpop+jwt` with a public `jwk`.
        case malformed
        /// An algorithm we do not verify proofs with (`none`, a MAC, …).
        case algorithm
        /// The signature does not verify with the header's key.
        case signature
        /// `htm` or `htu` is not this request's.
        case target
        /// `iat` outside the accepted window.
        case time
        /// The proof was used before.
        case replayed
        /// `ath` is not the hash of the access token presented.
        case tokenHash
        /// The proof is by another key than the token's.
        case wrongKey
        /// The server wants a nonce it gave, or a fresher one (`use_dpop_nonce`).
        case nonce
    }

    public let reason: Reason
    public let detail: String

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// A proof whose use a store has recorded already, on any instance.
    public static let usedBefore = DPoPRefusal(.replayed, "the proof was used before")
}
