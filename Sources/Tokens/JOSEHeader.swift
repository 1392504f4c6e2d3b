internal import Foundation

/// The protected header members the verifier reads itself, before any signature check.
struct JOSEHeader {
    /// Signature algorithm as written in the token.
    let alg: String?
    /// Key identifier.
    let kid: String?
    /// Critical extensions (RFC 7515 section 4.1.11); we understand none.
    let crit: [String]?
    /// The token's media type (RFC 7515 section 4.1.9).
    let typ: String?
    /// Every `alg` member in document order: more than one when the header repeats it.
    let algorithms: [String?]
    /// A member name the header states twice, which RFC 7515 §5.2 says to reject.
    let duplicateName: String?

    private struct Members: Decodable {
        let alg: String?
        let kid: String?
        let crit: [String]?
        let typ: String?
    }

    /// Decodes a base64url header segment; anything but a JSON object → `malformed`.
    init(segment: Substring) throws(TokenError) {
        guard let bytes = Crypto.base64URLDecode(segment) else {
            throw .malformed("header is not base64url")
        }
        let decoded = try JSON.decode(Members.self, from: Data(bytes), context: "header")
        guard let members = JSONMembers(bytes) else { throw .malformed("header is not a JSON object") }
        alg = decoded.alg
        kid = decoded.kid
        crit = decoded.crit
        typ = decoded.typ
        algorithms = members.strings(named: "alg")
        duplicateName = members.duplicateName
    }
}
