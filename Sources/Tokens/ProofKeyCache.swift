import Synchronization

/// The keys of recent DPoP proofs, parsed: a device signs every proof with the same key, and
/// making an OpenSSL key from a JWK costs more than checking the signature with it. Keys are
/// found by their RFC 7638 thumbprint, a hash of the whole public key, so a proof cannot get
/// another key than its own. At most ``capacity`` keys are held; when full it starts again,
/// so a flood of new keys costs parsing, never memory.
public final class ProofKeyCache: Sendable {
    public let capacity: Int
    private let keys = Mutex<[String: VerificationKey]>([:])

    public init(capacity: Int = 4_096) {
        self.capacity = capacity
    }

    /// The key of `jwk`, whose thumbprint is `thumbprint`, parsed once while it is held. The
    /// members outside the thumbprint (`use`, `alg`) are checked every time.
    public func key(for jwk: JWK, thumbprint: String) throws(TokenError) -> VerificationKey {
        if let use = jwk.use, use != "sig" { throw .unsupportedKey("key use \"\(use)\"") }
        let key: VerificationKey
        if let held = keys.withLock({ $0[thumbprint] }) {
            key = held
        } else {
            key = try VerificationKey(jwk: JWK(kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, n: jwk.n, e: jwk.e))
            keys.withLock { keys in
                if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
                keys[thumbprint] = key
            }
        }
        if let alg = jwk.alg, alg != key.algorithm.rawValue { throw .unsupportedKey("alg \(alg) on a \(jwk.kty) key") }
        return key
    }

    /// How many keys are held now.
    public var count: Int { keys.withLock { $0.count } }
}
