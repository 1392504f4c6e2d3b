/// Codes of the integration API.
enum IntegrationErrorCode: String, APIErrorCode {
    case invalidCursor = "invalid_cursor"
    case serverBusy = "server_busy"
}
