/// Codes of bearer-token authentication (RFC 6750) and of the role checks behind it.
enum AuthErrorCode: String, APIErrorCode {
    case unauthorized
    case invalidToken = "invalid_token"
    case forbidden
}
