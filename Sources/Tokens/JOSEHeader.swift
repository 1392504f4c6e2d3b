internal import Foundation

/// The protected header members the verifier reads itself, before trusting libjwt.
struct JOSEHeader: Decodable {
    /// Signature algorithm as written in the token.
    let alg: String?
    /// Key identifier.
    let kid: String?
    /// Critical extensions (RFC 7515 section 4.1.11); we understand none.
    let crit: [String]?

    /// Decodes a base64url header segment; anything but a JSON object → `malformed`.
    init(segment: Substring) throws(TokenError) {
        guard let bytes = Crypto.base64URLDecode(String(segment)) else {
            throw .malformed("header is not base64url")
        }
        self = try JSON.decode(JOSEHeader.self, from: Data(bytes), context: "header")
    }
}
