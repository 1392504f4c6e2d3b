public import Tokens

/// One environment's OpenID Connect provider.
///
/// Keys under `environments.<id>.idp`: `issuer` (required; discovery is
/// `issuer + /.well-known/openid-configuration`), `client_id` (required), `client_secret_env`
/// (the name of the environment variable that holds the secret; the secret never sits in a
/// file), `scopes` (default `[openid, email, profile]`), `token_endpoint_auth`
/// (`client_secret_basic`, the default, or `client_secret_post`), `id_token_algorithms`
/// (default `[RS256, ES256]`).
public struct IdentityProviderSettings: Sendable {
    /// How the client authenticates at the token endpoint.
    public enum ClientAuthentication: String, Sendable {
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
    }

    /// Exact issuer identifier.
    public var issuer: String
    /// Our client id at the IdP.
    public var clientID: String
    /// Name of the environment variable holding the client secret.
    public var clientSecretVariable: String
    /// The secret read from that variable; `nil` when it is not set.
    public var clientSecret: String?
    /// Scopes requested; always contains `openid`.
    public var scopes: [String]
    /// Token endpoint client authentication.
    public var clientAuthentication: ClientAuthentication
    /// ID token signature algorithms accepted.
    public var idTokenAlgorithms: Set<SigningAlgorithm>

    init(_ settings: SettingsReader, prefix: [String], environment: [String: String]) throws(ConfigurationError) {
        issuer = try settings.baseURL(prefix + ["issuer"])
        clientID = try settings.string(prefix + ["client_id"])
        clientSecretVariable = try settings.string(prefix + ["client_secret_env"])
        clientSecret = environment[clientSecretVariable].flatMap { $0.isEmpty ? nil : $0 }
        scopes = try settings.strings(prefix + ["scopes"], default: ["openid", "email", "profile"])
        guard scopes.contains("openid") else {
            throw ConfigurationError(key: settings.dotted(prefix + ["scopes"]), "must contain openid")
        }
        let authName = try settings.string(prefix + ["token_endpoint_auth"], default: "client_secret_basic")
        guard let authentication = ClientAuthentication(rawValue: authName) else {
            throw ConfigurationError(
                key: settings.dotted(prefix + ["token_endpoint_auth"]),
                "must be client_secret_basic or client_secret_post, not '\(authName)'"
            )
        }
        clientAuthentication = authentication
        let algorithmNames = try settings.strings(prefix + ["id_token_algorithms"], default: ["RS256", "ES256"])
        var algorithms: Set<SigningAlgorithm> = []
        for name in algorithmNames {
            guard let algorithm = SigningAlgorithm(rawValue: name) else {
                throw ConfigurationError(
                    key: settings.dotted(prefix + ["id_token_algorithms"]),
                    "'\(name)' is not supported (RS256, ES256)"
                )
            }
            algorithms.insert(algorithm)
        }
        guard !algorithms.isEmpty else {
            throw ConfigurationError(key: settings.dotted(prefix + ["id_token_algorithms"]), "must not be empty")
        }
        idTokenAlgorithms = algorithms
    }
}
