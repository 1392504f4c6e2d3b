/// The answer to `POST /register_device`.
public struct RegistrationResponse: Codable, Sendable, Equatable {
    /// The onboarding session; also the key of the event socket.
    public var sessionID: String
    /// The IdP's authorization URL for the device's browser.
    public var loginURL: String
    /// The complete event socket URL.
    public var websocketURL: String
    /// Seconds until the session expires.
    public var expiresIn: Int

    enum CodingKeys: String, CodingKey {
        case sessionID = "session_id"
        case loginURL = "login_url"
        case websocketURL = "websocket_url"
        case expiresIn = "expires_in"
    }
}
