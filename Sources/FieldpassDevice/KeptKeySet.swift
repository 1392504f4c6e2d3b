import Crypto
import CryptoExtras
import Foundation

/// Fieldpass's signing keys as a shared device keeps them (its `GET /.well-known/jwks.json`),
/// to check an offline permit's signature with no network. Public keys only.
struct KeptKeySet: Codable, Sendable, Equatable {
    /// One published key: the members the JWKS has, those of ES256 and RS256 keys.
    struct Key: Codable, Sendable, Equatable {
        var kty: String
        var kid: String?
        var alg: String?
        var crv: String?
        var x: String?
        var y: String?
        var n: String?
        var e: String?
    }

    var keys: [Key]
    /// When the device fetched them.
    var fetchedAt: Date

    func contains(kid: String?) -> Bool {
        keys.contains { $0.kid != nil && $0.kid == kid }
    }

    /// Whether `permit` is signed by one of the keys: the one its `kid` names, of the kind its
    /// `alg` needs. The algorithm comes from the key as much as from the header: an ES256
    /// header never gets an RSA key checked, nor the other way round.
    func verifies(_ permit: OfflinePermit) -> Bool {
        guard let kid = permit.header.kid, let key = keys.first(where: { $0.kid == kid }) else { return false }
        if let alg = key.alg, alg != permit.header.alg { return false }
        switch (permit.header.alg, key.kty) {
        case ("ES256", "EC"):
            guard key.crv == "P-256", let x = key.x.flatMap({ Data(base64URLEncoded: $0) }),
                let y = key.y.flatMap({ Data(base64URLEncoded: $0) }), x.count == 32, y.count == 32,
                let publicKey = try? P256.Signing.PublicKey(rawRepresentation: x + y),
                let signature = try? P256.Signing.ECDSASignature(rawRepresentation: permit.signature)
            else { return false }
            return publicKey.isValidSignature(signature, for: permit.signingInput)
        case ("RS256", "RSA"):
            guard let n = key.n.flatMap({ Data(base64URLEncoded: $0) }), let e = key.e.flatMap({ Data(base64URLEncoded: $0) }),
                let publicKey = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return false }
            // PKCS #1 v1.5, as RS256 is (RFC 7518 §3.3): CryptoExtras checks PSS unless told.
            let signature = _RSA.Signing.RSASignature(rawRepresentation: permit.signature)
            return publicKey.isValidSignature(signature, for: permit.signingInput, padding: .insecurePKCS1v1_5)
        default:
            return false
        }
    }

    /// The keys of a JWKS document; `nil` for anything else.
    static func decoding(_ data: Data, fetchedAt: Date) -> KeptKeySet? {
        struct Document: Decodable { var keys: [Key] }
        guard let document = try? JSONDecoder().decode(Document.self, from: data) else { return nil }
        return KeptKeySet(keys: document.keys, fetchedAt: fetchedAt)
    }

    enum CodingKeys: String, CodingKey {
        case keys
        case fetchedAt = "fetched_at"
    }
}
