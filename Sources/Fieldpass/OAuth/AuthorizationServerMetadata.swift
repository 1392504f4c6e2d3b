import Tokens

/// What `/.well-known/oauth-authorization-server` (RFC 8414) and
/// `/.well-known/openid-configuration` say of Fieldpass, so that OAuth tools find its
/// endpoints and keys by themselves.
///
/// Devices get their first tokens through `register_device`, not an authorization
/// endpoint, so none is named and no response type is offered.
struct AuthorizationServerMetadata: Encodable, Sendable {
    let issuer: String
    let jwksURI: String
    let tokenEndpoint: String
    let revocationEndpoint: String
    let introspectionEndpoint: String
    let grantTypesSupported = ["refresh_token", "client_credentials"]
    let responseTypesSupported: [String] = []
    /// `none` for devices (public clients) refreshing; Basic for service accounts.
    let tokenEndpointAuthMethodsSupported = ["client_secret_basic", "none"]
    let revocationEndpointAuthMethodsSupported = ["client_secret_basic", "none"]
    let introspectionEndpointAuthMethodsSupported = ["client_secret_basic"]
    let accessTokenSigningAlgValuesSupported: [String]
    /// What DPoP proofs (RFC 9449) may be signed with.
    let dpopSigningAlgValuesSupported = DPoPProof.algorithms.map(\.rawValue)

    init(issuer: String, signingAlgorithms: [String]) {
        self.issuer = issuer
        jwksURI = issuer + "/.well-known/jwks.json"
        tokenEndpoint = issuer + "/token"
        revocationEndpoint = issuer + "/revoke"
        introspectionEndpoint = issuer + "/introspect"
        accessTokenSigningAlgValuesSupported = signingAlgorithms
    }

    enum CodingKeys: String, CodingKey {
        case issuer
        case jwksURI = "jwks_uri"
        case tokenEndpoint = "token_endpoint"
        case revocationEndpoint = "revocation_endpoint"
        case introspectionEndpoint = "introspection_endpoint"
        case grantTypesSupported = "grant_types_supported"
        case responseTypesSupported = "response_types_supported"
        case tokenEndpointAuthMethodsSupported = "token_endpoint_auth_methods_supported"
        case revocationEndpointAuthMethodsSupported = "revocation_endpoint_auth_methods_supported"
        case introspectionEndpointAuthMethodsSupported = "introspection_endpoint_auth_methods_supported"
        case accessTokenSigningAlgValuesSupported = "access_token_signing_alg_values_supported"
        case dpopSigningAlgValuesSupported = "dpop_signing_alg_values_supported"
    }
}
