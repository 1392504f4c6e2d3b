/// The answer to `POST /register_device`.
struct RegistrationResponse: Encodable, Sendable, Equatable {
    /// The onboarding session; also the key of the event socket.
    var sessionID: String
    /// Where the device's browser starts: the confirmation page, or the IdP's authorization
    /// URL when the environment skips the page.
    var loginURL: String
    /// The complete event socket URL.
    var websocketURL: String
    /// The same events by HTTP long-poll, for networks and platforms without WebSockets.
    var eventsURL: String
    /// Seconds until the session expires.
    var expiresIn: Int
    /// The code the app shows, for the person to compare with the confirmation page.
    var userCode: String

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case loginURL = "login_url"
        case websocketURL = "websocket_url"
        case eventsURL = "events_url"
        case expiresIn = "expires_in"
        case userCode = "user_code"
    }
}
