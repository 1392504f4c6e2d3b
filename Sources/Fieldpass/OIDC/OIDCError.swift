/// Why a sign-in at the IdP did not produce a trusted identity.
///
/// `code` becomes the `error` of the `login_failed` event; `description` its
/// `error_description`. Neither ever contains a token, a code or a secret.
public struct OIDCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Event error code.
    public let code: String
    /// Human-readable reason.
    public let description: String

    init(_ code: String, _ description: String) {
        self.code = code
        self.description = description
    }

    static func idpUnavailable(_ description: String) -> OIDCError { OIDCError("idp_unavailable", description) }
    static func invalidIDToken(_ description: String) -> OIDCError { OIDCError("invalid_id_token", description) }
}
