import FieldpassDomain
public import Tokens

/// One environment's OpenID Connect provider.
///
/// Keys under `environments.<id>.idp`: `issuer` (required; discovery is
/// `issuer + /.well-known/openid-configuration`), `client_id` (required), `client_secret_env`
/// (the name of the environment variable that holds the secret; the secret never sits in a
/// file), `scopes` (default `[openid, email, profile]`), `token_endpoint_auth`
/// (`client_secret_basic`, the default, or `client_secret_post`), `id_token_algorithms`
/// (default `[RS256, ES256]`), `prompt` (optional, e.g. `login`: sent with every
/// authorization request), `require_email_verified` (default `false`: Entra ID sends no
/// `email_verified`; when `true` an absent claim is refused too), `timeout` (seconds one call
/// to the IdP may take, body included, default 10).
public struct IdentityProviderSettings: Sendable {
    /// How the client authenticates at the token endpoint.
    public enum ClientAuthentication: String, Sendable {
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"
    }

    /// Seconds one IdP call may take, from connecting to the last byte of the body.
    public var timeout: Int
    /// Exact issuer identifier, a trailing `/` included when the IdP's has one.
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
    /// OIDC `prompt` for the authorization request (`login`, `consent`, …), if any.
    public var prompt: String?
    /// Whether a sign-in needs `email_verified: true`, not merely no `false`.
    public var requireEmailVerified: Bool

    /// Where the discovery document lives: the issuer without its trailing `/`, plus the well-known path.
    public var discoveryURL: String {
        (issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer) + "/.well-known/openid-configuration"
    }

    init(_ settings: SettingsReader, prefix: [String], environment: [String: String]) throws(ConfigurationError) {
        issuer = try settings.issuerURL(prefix + ["issuer"])
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
        prompt = try settings.optionalString(prefix + ["prompt"])
        if let prompt, !prompt.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || $0 == " " || $0 == "_" }) {
            throw ConfigurationError(key: settings.dotted(prefix + ["prompt"]), "must be OIDC prompt values such as login, not '\(prompt)'")
        }
        requireEmailVerified = try settings.bool(prefix + ["require_email_verified"], default: false)
        timeout = try settings.int(prefix + ["timeout"], default: 10, in: 1...120)
    }
}
