/// Codes of `register_device` and the event socket.
enum OnboardingErrorCode: String, APIErrorCode {
    case invalidEmail = "invalid_email"
    case unknownDomain = "unknown_domain"
    case idpUnavailable = "idp_unavailable"
    case unknownSession = "unknown_session"
}
