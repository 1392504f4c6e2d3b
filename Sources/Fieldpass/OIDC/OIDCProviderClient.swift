import AsyncHTTPClient
import Foundation
import Tokens

/// Talks to one environment's OpenID Connect provider: discovery, the authorization URL,
/// the code exchange, ID token validation and userinfo.
///
/// Discovery and the IdP's keys are fetched once and cached; an unknown `kid` triggers a
/// re-fetch of the keys (the IdP rotated them), at most one per ``retryDelay``. Concurrent
/// fetches are merged and failures remembered for as long (``SharedFetch``), so no client
/// can make Fieldpass hammer an IdP.
final class OIDCProviderClient: Sendable {
    /// Between two fetches of the same document after a failure, and between key refreshes.
    static let retryDelay: Duration = .seconds(10)

    private let settings: IdentityProviderSettings
    private let redirectURI: String
    private let http: IdPHTTPClient
    private let discoveryDocument: SharedFetch<OIDCDiscoveryDocument>
    private let keys: SharedFetch<[VerificationKey]>

    init(settings: IdentityProviderSettings, redirectURI: String, http: IdPHTTPClient) {
        self.settings = settings
        self.redirectURI = redirectURI
        self.http = http
        let discoveryDocument = SharedFetch(retryDelay: Self.retryDelay) { () async throws(OIDCError) -> OIDCDiscoveryDocument in
            try await http.getJSON(OIDCDiscoveryDocument.self, from: settings.discoveryURL, operation: "discovery")
                .validated(expectedIssuer: settings.issuer)
        }
        self.discoveryDocument = discoveryDocument
        self.keys = SharedFetch(retryDelay: Self.retryDelay) { () async throws(OIDCError) -> [VerificationKey] in
            let jwksURI = try await discoveryDocument.value().jwksURI
            let set = try await http.getJSON(JWKSet.self, from: jwksURI, operation: "jwks")
            // Keys we cannot use (encryption keys, other curves) are skipped, not fatal.
            return set.keys.filter { $0.use == nil || $0.use == "sig" }.compactMap { try? VerificationKey(jwk: $0) }
        }
    }

    /// The URL the device's browser is sent to for signing in.
    func authorizationURL(state: String, nonce: String, codeChallenge: String, loginHint: String) async throws(OIDCError) -> String {
        let endpoint = try await discovery().authorizationEndpoint
        var fields = [
            ("response_type", "code"),
            ("client_id", settings.clientID),
            ("redirect_uri", redirectURI),
            ("scope", settings.scopes.joined(separator: " ")),
            ("state", state),
            ("nonce", nonce),
            ("code_challenge", codeChallenge),
            ("code_challenge_method", "S256"),
            ("login_hint", loginHint),
        ]
        if let prompt = settings.prompt { fields.append(("prompt", prompt)) }
        return endpoint + (endpoint.contains("?") ? "&" : "?") + FormEncoding.encode(fields)
    }

    /// Exchanges an authorization code, with the PKCE verifier, for the IdP's tokens.
    func exchange(code: String, codeVerifier: String) async throws(OIDCError) -> (idToken: String, accessToken: String?) {
        let endpoint = try await discovery().tokenEndpoint
        guard let secret = settings.clientSecret else {
            throw OIDCError("server_error", "The client secret for this IdP is not configured.")
        }
        var fields = [
            ("grant_type", "authorization_code"), ("code", code),
            ("redirect_uri", redirectURI), ("code_verifier", codeVerifier),
        ]
        var basicAuth: String?
        switch settings.clientAuthentication {
        case .clientSecretBasic:
            // RFC 6749 2.3.1: both parts are form-encoded before they are joined.
            let pair = "\(FormEncoding.escape(settings.clientID)):\(FormEncoding.escape(secret))"
            basicAuth = Data(pair.utf8).base64EncodedString()
        case .clientSecretPost:
            fields += [("client_id", settings.clientID), ("client_secret", secret)]
        }
        let (status, body) = try await http.postForm(fields, to: endpoint, basicAuth: basicAuth, operation: "token")
        // A 5xx is the IdP failing, whatever error its body names: the device should try again.
        guard status < 500 else {
            throw OIDCError.idpUnavailable("\(IdPHTTPClient.hostOf(endpoint)) answered HTTP \(status)")
        }
        let response = try http.decode(TokenEndpointResponse.self, from: body, source: endpoint)
        guard (200..<300).contains(status) else {
            throw OIDCError(
                LoginErrorText.code(response.error ?? "invalid_grant"),
                LoginErrorText.description(response.errorDescription ?? "The IdP refused the authorization code.")
            )
        }
        guard let idToken = response.idToken else {
            throw OIDCError.invalidIDToken("The IdP returned no ID token.")
        }
        return (idToken, response.accessToken)
    }

    /// Validates an ID token (OIDC Core 3.1.3.7) and returns its claims.
    func validateIDToken(_ idToken: String, nonce: String, now: Date) async throws(OIDCError) -> (subject: String, claims: IDTokenClaims) {
        let verified = try await verify(idToken, now: now)
        let claims: IDTokenClaims
        do {
            claims = try verified.decode(IDTokenClaims.self)
        } catch {
            throw OIDCError.invalidIDToken("The ID token's claims have the wrong types.")
        }
        guard let subject = claims.sub, !subject.isEmpty else {
            throw OIDCError.invalidIDToken("The ID token has no subject.")
        }
        guard verified.claims.iat != nil else {
            throw OIDCError.invalidIDToken("The ID token has no issue time.")
        }
        guard claims.nonce == nonce else {
            throw OIDCError.invalidIDToken("The ID token's nonce does not match this sign-in.")
        }
        let audiences = verified.claims.aud ?? []
        if audiences.count > 1 || claims.azp != nil {
            guard claims.azp == settings.clientID else {
                throw OIDCError.invalidIDToken("The ID token was issued to another client.")
            }
        }
        return (subject, claims)
    }

    /// The userinfo endpoint's answer, whose `sub` must be the ID token's; `nil` when the IdP has none.
    func userInfo(accessToken: String, subject: String) async throws(OIDCError) -> UserInfoResponse? {
        guard let endpoint = try await discovery().userinfoEndpoint else { return nil }
        let info = try await http.getJSON(UserInfoResponse.self, from: endpoint, bearer: accessToken, operation: "userinfo")
        guard info.sub == subject else {
            throw OIDCError.invalidIDToken("The userinfo subject differs from the ID token's.")
        }
        return info
    }

    /// The exact issuer, for the RFC 9207 `iss` check.
    var issuer: String { settings.issuer }

    private func verify(_ token: String, now: Date) async throws(OIDCError) -> VerifiedToken {
        let policy = JWTVerificationPolicy(
            issuer: settings.issuer, audience: settings.clientID, leeway: 60,
            requireExpiry: true, allowedAlgorithms: settings.idTokenAlgorithms
        )
        let cachedKeys = try await keys.value()
        // libjwt, not the parsed-key path: an IdP's keys change with its JWKS, and ID tokens are rare.
        do {
            return try JWTVerifier(keys: cachedKeys, policy: policy, backend: .libjwt).verify(token, now: now)
        } catch .unknownKey {
            let freshKeys = try await keys.refreshed()
            do {
                return try JWTVerifier(keys: freshKeys, policy: policy, backend: .libjwt).verify(token, now: now)
            } catch {
                throw OIDCError.invalidIDToken(Self.explain(error))
            }
        } catch {
            throw OIDCError.invalidIDToken(Self.explain(error))
        }
    }

    private func discovery() async throws(OIDCError) -> OIDCDiscoveryDocument {
        try await discoveryDocument.value()
    }

    private static func explain(_ error: TokenError) -> String {
        switch error {
        case .expired: "The ID token has expired."
        case .notYetValid: "The ID token is not valid yet."
        case .wrongIssuer: "The ID token was issued by someone else."
        case .wrongAudience: "The ID token was issued to another client."
        case .algorithmNotAllowed: "The ID token uses an algorithm that is not allowed."
        case .unknownKey: "The ID token is signed with a key the IdP does not publish."
        case .invalidSignature: "The ID token's signature is invalid."
        default: "The ID token is malformed."
        }
    }
}
