/// A token endpoint answer: tokens on success, RFC 6749 5.2 fields on error.
struct TokenEndpointResponse: Decodable, Sendable {
    var idToken: String?
    var accessToken: String?
    var tokenType: String?
    var error: String?
    var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case idToken = "id_token"
        case accessToken = "access_token"
        case tokenType = "token_type"
        case error
        case errorDescription = "error_description"
    }
}
