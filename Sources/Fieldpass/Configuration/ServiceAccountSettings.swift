/// A backend integration's credentials.
///
/// Keys under `environments.<id>.service_accounts[]`: `id` (the OAuth client id; unique across
/// all environments) and `secret_env` (the name of the environment variable holding the
/// secret; the secret never sits in a file).
public struct ServiceAccountSettings: Sendable {
    /// Client id at `POST /token`.
    public var id: String
    /// Name of the environment variable holding the secret.
    public var secretVariable: String
    /// The secret read from that variable; `nil` when it is not set (the account cannot sign in).
    public var secret: String?

    init(id: String, _ settings: SettingsReader, prefix: [String], environment: [String: String]) throws(ConfigurationError) {
        self.id = id
        secretVariable = try settings.string(prefix + ["secret_env"])
        secret = environment[secretVariable].flatMap { $0.isEmpty ? nil : $0 }
    }
}
