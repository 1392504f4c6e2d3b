/// The parts of an IdP's `/.well-known/openid-configuration` that Fieldpass uses.
struct OIDCDiscoveryDocument: Decodable, Sendable {
    var issuer: String
    var authorizationEndpoint: String
    var tokenEndpoint: String
    var jwksURI: String
    var userinfoEndpoint: String?

    enum CodingKeys: String, CodingKey {
        case issuer
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
        case jwksURI = "jwks_uri"
        case userinfoEndpoint = "userinfo_endpoint"
    }

    /// OIDC Discovery 4.3: the issuer must be exactly the configured one, and endpoints must
    /// be http(s) URLs (https unless the issuer itself is plain http, as a local IdP is).
    func validated(expectedIssuer: String) throws(OIDCError) -> OIDCDiscoveryDocument {
        guard issuer == expectedIssuer else {
            throw OIDCError.idpUnavailable("the IdP's discovery document names another issuer")
        }
        let allowsHTTP = expectedIssuer.hasPrefix("http://")
        for endpoint in [authorizationEndpoint, tokenEndpoint, jwksURI] + (userinfoEndpoint.map { [$0] } ?? []) {
            let isHTTPS = endpoint.hasPrefix("https://")
            guard isHTTPS || (allowsHTTP && endpoint.hasPrefix("http://")) else {
                throw OIDCError.idpUnavailable("the IdP's discovery document has an invalid endpoint")
            }
        }
        return self
    }
}
