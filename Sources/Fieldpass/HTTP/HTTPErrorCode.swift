/// Codes any endpoint may answer: malformed requests, limits, and the server's own state.
enum HTTPErrorCode: String, APIErrorCode {
    case invalidRequest = "invalid_request"
    case notFound = "not_found"
    case methodNotAllowed = "method_not_allowed"
    case payloadTooLarge = "payload_too_large"
    case unsupportedMediaType = "unsupported_media_type"
    case rateLimited = "rate_limited"
    case storeUnavailable = "store_unavailable"
    case serverError = "server_error"
}
