import Foundation
import Testing
@testable import Tokens

/// Keys shared by tests (generated once: RSA generation is slow) and claim helpers.
enum Fixtures {
    /// A fixed "now" so time checks are deterministic.
    static let now = Date(timeIntervalSince1970: 1_700_000_000)
    /// Issuer and audience the default policy expects.
    static let issuer = "https://issuer.example"
    static let audience = "client-1"

    static let es256 = Result { () throws(TokenError) -> SigningKey in try SigningKey.generate(.es256) }
    static let es256Other = Result { () throws(TokenError) -> SigningKey in try SigningKey.generate(.es256) }
    static let rs256 = Result { () throws(TokenError) -> SigningKey in try SigningKey.generate(.rs256) }

    /// The generated key for `algorithm`.
    static func key(_ algorithm: SigningAlgorithm) throws -> SigningKey {
        switch algorithm {
        case .es256: try es256.get()
        case .rs256: try rs256.get()
        }
    }

    /// The policy most tests verify against.
    static let policy = JWTVerificationPolicy(issuer: issuer, audience: audience)

    /// A verifier over `keys` with `policy`.
    static func verifier(_ keys: [SigningKey], policy: JWTVerificationPolicy = policy) -> JWTVerifier {
        JWTVerifier(keys: keys.map(\.publicKey), policy: policy)
    }
}

/// Claims as the service issues them, plus one private claim.
struct TestClaims: Codable, Equatable {
    var iss: String? = Fixtures.issuer
    var sub: String? = "user-1"
    var aud: String? = Fixtures.audience
    var exp: Int? = Int(Fixtures.now.timeIntervalSince1970) + 300
    var nbf: Int?
    var iat: Int? = Int(Fixtures.now.timeIntervalSince1970)
    var jti: String? = "jti-1"
    var email: String? = "a@example.com"
}

/// Builds and takes apart compact tokens by hand.
enum Compact {
    /// `base64url(header).base64url(payload).signature`.
    static func token(header: String, payload: String, signature: String) -> String {
        "\(Crypto.base64URLEncode(header.utf8)).\(Crypto.base64URLEncode(payload.utf8)).\(signature)"
    }

    /// The three segments of `token`.
    static func parts(_ token: String) -> [String] {
        token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    /// A segment's decoded JSON object.
    static func object(_ segment: String) throws -> [String: Any] {
        let bytes = try #require(Crypto.base64URLDecode(segment))
        return try #require(JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    /// The claims of an unsigned payload as a JSON string.
    static func json(_ claims: TestClaims) throws -> String {
        String(decoding: try JSONEncoder().encode(claims), as: UTF8.self)
    }
}

/// HMAC-SHA256 (RFC 2104) on top of the module's SHA-256, for forging HS256 tokens.
func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] {
    var block = key.count > 64 ? Crypto.sha256(key) : key
    block += [UInt8](repeating: 0, count: 64 - block.count)
    let inner = Crypto.sha256(block.map { $0 ^ 0x36 } + message)
    return Crypto.sha256(block.map { $0 ^ 0x5c } + inner)
}
