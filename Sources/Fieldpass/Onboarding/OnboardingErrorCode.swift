/// Codes of `register_device`, the event socket and its long-poll.
enum OnboardingErrorCode: String, APIErrorCode {
    case invalidEmail = "invalid_email"
    case unknownDomain = "unknown_domain"
    case idpUnavailable = "idp_unavailable"
    case unknownSession = "unknown_session"
    /// The session (or the instance) holds as many event sockets and long-polls as it may.
    case serverBusy = "server_busy"
    /// The registration's key is a shared device's that is unenrolled, or of another environment.
    case sharedDeviceRefused = "shared_device_refused"
}
