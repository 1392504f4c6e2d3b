/// The reasons a sign-in can fail that `fieldpass_login_failed_total` counts by name.
///
/// An IdP (or whoever calls `/auth_callback`) chooses the `error` of a refused sign-in, so
/// the metric's label comes from this fixed list: any other code counts as `other`, and no
/// caller can add a series.
package enum LoginFailureReason: String {
    // RFC 6749 4.1.2.1 (authorization) and 5.2 (token endpoint).
    case invalidRequest = "invalid_request"
    case unauthorizedClient = "unauthorized_client"
    case accessDenied = "access_denied"
    case unsupportedResponseType = "unsupported_response_type"
    case invalidScope = "invalid_scope"
    case serverError = "server_error"
    case temporarilyUnavailable = "temporarily_unavailable"
    case invalidClient = "invalid_client"
    case invalidGrant = "invalid_grant"
    case unsupportedGrantType = "unsupported_grant_type"
    // OpenID Connect Core 3.1.2.6.
    case interactionRequired = "interaction_required"
    case loginRequired = "login_required"
    case accountSelectionRequired = "account_selection_required"
    case consentRequired = "consent_required"
    case invalidRequestURI = "invalid_request_uri"
    case invalidRequestObject = "invalid_request_object"
    case requestNotSupported = "request_not_supported"
    case requestURINotSupported = "request_uri_not_supported"
    case registrationNotSupported = "registration_not_supported"
    // Fieldpass's own.
    case idpUnavailable = "idp_unavailable"
    case invalidIDToken = "invalid_id_token"
    case emailMismatch = "email_mismatch"
    case emailNotVerified = "email_not_verified"
    case identityMismatch = "identity_mismatch"
    case identityInUse = "identity_in_use"
    case userDisabled = "user_disabled"
    case browserMismatch = "browser_mismatch"

    /// The metric label for `code`: its own name when listed, else `other`.
    package static func label(_ code: String) -> String {
        LoginFailureReason(rawValue: code)?.rawValue ?? "other"
    }
}
