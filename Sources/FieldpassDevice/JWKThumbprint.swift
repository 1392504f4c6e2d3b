import Crypto
import Foundation

/// RFC 7638 JWK thumbprints: the SHA-256 of the key's required members, in lexicographic
/// order, as JSON without whitespace, base64url.
public enum JWKThumbprint {
    /// The members RFC 7638 §3.2 hashes, by key type (RFC 7518 §6, RFC 8037 §2).
    private static let requiredMembers: [String: [String]] = [
        "EC": ["crv", "kty", "x", "y"], "RSA": ["e", "kty", "n"], "oct": ["k", "kty"], "OKP": ["crv", "kty", "x"],
    ]

    /// The SHA-256 thumbprint of `jwk`; throws ``DPoPKeyError/unsupportedJWK(_:)`` for a key type
    /// it does not know or a required member missing.
    public static func sha256(of jwk: [String: String]) throws -> String {
        guard let kty = jwk["kty"], let names = requiredMembers[kty] else {
            throw DPoPKeyError.unsupportedJWK("no known kty")
        }
        let members = try names.map { name in
            guard let value = jwk[name] else { throw DPoPKeyError.unsupportedJWK("\(kty) key without \(name)") }
            return (name, value)
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let canonical = try encoder.encode(Dictionary(uniqueKeysWithValues: members))
        return Data(SHA256.hash(data: canonical)).base64URLEncoded
    }
}

/// Why a DPoP key could not be used.
public enum DPoPKeyError: Error, Equatable, Sendable {
    /// A JWK whose thumbprint cannot be computed: the reason.
    case unsupportedJWK(String)
    /// The key file holds no P-256 private key in PEM: someone wrote something else there.
    case unreadableKeyFile(path: String)
}
