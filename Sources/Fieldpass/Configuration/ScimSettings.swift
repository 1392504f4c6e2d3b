import FieldpassDomain

/// SCIM 2.0 provisioning of one environment, at `{public_url}/scim/v2`.
///
/// Key under `environments.<id>.scim`: `token_env`, the name of the environment variable
/// holding the bearer token the IdP sends (`fieldpass scim token` makes one). The token
/// names the environment; it must be set and at least ``minimumTokenLength`` characters, or
/// start-up stops naming the key.
public struct ScimSettings: Sendable {
    /// Characters a SCIM token has at least.
    public static let minimumTokenLength = 32

    /// Name of the environment variable holding the token.
    public var tokenVariable: String
    /// The token itself; never logged.
    public var token: String

    init?(_ settings: SettingsReader, prefix: [String], environment: [String: String]) throws(ConfigurationError) {
        let key = prefix + ["token_env"]
        guard let variable = try settings.optionalString(key) else { return nil }
        tokenVariable = variable
        guard let token = environment[variable], token.count >= Self.minimumTokenLength else {
            throw ConfigurationError(
                key: settings.dotted(key),
                "the SCIM token in \(variable) must be set and at least \(Self.minimumTokenLength) characters (make one with `fieldpass scim token`)"
            )
        }
        self.token = token
    }
}
