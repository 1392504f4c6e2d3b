import FieldpassDomain

/// A backend integration's credentials.
///
/// Keys under `environments.<id>.service_accounts[]`: `id` (the OAuth client id; unique across
/// all environments) and `secret_env` (the name of the environment variable holding the
/// secret; the secret never sits in a file). A secret shorter than
/// ``minimumSecretLength`` stops start-up: a client id is no secret, so the secret alone
/// must be too long to guess.
public struct ServiceAccountSettings: Sendable {
    /// Characters a service account's secret has at least.
    public static let minimumSecretLength = 32

    /// Client id at `POST /token`.
    public var id: String
    /// Name of the environment variable holding the secret.
    public var secretVariable: String
    /// The secret read from that variable; `nil` when it is not set (the account cannot sign in).
    public var secret: String?

    init(id: String, _ settings: SettingsReader, prefix: [String], environment: [String: String]) throws(ConfigurationError) {
        self.id = id
        let key = prefix + ["secret_env"]
        secretVariable = try settings.string(key)
        secret = environment[secretVariable].flatMap { $0.isEmpty ? nil : $0 }
        if let secret, secret.count < Self.minimumSecretLength {
            throw ConfigurationError(
                key: settings.dotted(key),
                "the secret of service account '\(id)' in \(secretVariable) is shorter than \(Self.minimumSecretLength) characters"
            )
        }
    }
}
