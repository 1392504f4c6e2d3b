import Tokens

/// The `token` parameter of revocation and introspection, checked before anything looks it up.
enum OAuthToken {
    /// The body of `/revoke` and `/introspect` (RFC 7009 2.1, RFC 7662 2.1).
    struct Form: Decodable {
        var token: String?
        /// Accepted and not needed: every token of ours says what it is.
        var tokenTypeHint: String?

        enum CodingKeys: String, CodingKey {
            case token
            case tokenTypeHint = "token_type_hint"
        }
    }

    /// Longer than any token of ours; junk is refused before it costs a signature check.
    static let maxLength = 8192

    static func required(_ token: String?) throws -> String {
        guard let token, !token.isEmpty else { throw APIError.invalidRequest("token is required.") }
        guard token.utf8.count <= maxLength else { throw APIError.invalidRequest("token is too long.") }
        return token
    }

    /// The stored form of `token` if it could be one of our refresh tokens.
    static func refreshTokenHash(_ token: String) -> String? {
        OpaqueToken.isWellFormed(token) ? TokenIssuer.hash(refreshToken: token) : nil
    }
}
