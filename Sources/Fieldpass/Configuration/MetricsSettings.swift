import FieldpassDomain

/// Who may read `GET /metrics`.
///
/// Key: `metrics.token_env`, the name of the environment variable holding the token scrapers
/// send as `Authorization: Bearer <token>`. Without the key `/metrics` is open (keep it
/// network-restricted). A named variable that is unset, or shorter than
/// ``minimumTokenLength``, stops start-up: a closed endpoint must not fall open, or close
/// with a guessable token, by a slip in the deployment.
public struct MetricsSettings: Sendable {
    /// Characters the token has at least, as a service account's secret.
    public static let minimumTokenLength = ServiceAccountSettings.minimumSecretLength

    /// The token scrapers must present; nil: `/metrics` is open.
    public var token: String?

    init(_ settings: SettingsReader, environment: [String: String]) throws(ConfigurationError) {
        let key = ["metrics", "token_env"]
        guard let variable = try settings.optionalString(key) else { return }
        guard let value = environment[variable], !value.isEmpty else {
            throw ConfigurationError(key: settings.dotted(key), "set the environment variable \(variable)")
        }
        guard value.count >= Self.minimumTokenLength else {
            throw ConfigurationError(
                key: settings.dotted(key), "the token in \(variable) is shorter than \(Self.minimumTokenLength) characters"
            )
        }
        token = value
    }
}
