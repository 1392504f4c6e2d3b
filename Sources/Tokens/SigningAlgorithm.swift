internal import CJWT

/// The JWS algorithms we sign and verify with.
public enum SigningAlgorithm: String, Sendable, Codable, CaseIterable {
    /// ECDSA over P-256 with SHA-256.
    case es256 = "ES256"
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    case rs256 = "RS256"

    /// libjwt's identifier for this algorithm.
    var libjwtAlgorithm: jwt_alg_t {
        switch self {
        case .es256: JWT_ALG_ES256
        case .rs256: JWT_ALG_RS256
        }
    }

    /// The JWK `kty` of keys for this algorithm.
    var keyType: String {
        switch self {
        case .es256: "EC"
        case .rs256: "RSA"
        }
    }
}
