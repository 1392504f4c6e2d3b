import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Tokens

/// A small OpenID Connect provider on a loopback port, for the library's tests: its
/// authorization endpoint signs in whoever `login_hint` names at once (or refuses an
/// address starting with `refuse`), and its token endpoint checks the client secret and PKCE
/// and signs an ID token. The real IdP, oidc-provider-mock, is the e2e suite's.
enum MiniIdP {
    static let clientID = "fieldpass"
    static let clientSecret = "mini-idp-client-secret-0123456789"

    /// Runs the provider for the duration of `body`, which gets its issuer URL.
    static func run(_ body: @escaping @Sendable (_ issuer: String) async throws -> Void) async throws {
        let key = try SigningKey.generate(.es256)
        let grants = Mutex<[String: Grant]>([:])
        let router = Router()
        router.get(".well-known/openid-configuration") { request, _ -> Response in
            let issuer = "http://\(request.head.authority ?? "")"
            return json([
                "issuer": issuer, "authorization_endpoint": issuer + "/authorize", "token_endpoint": issuer + "/token",
                "jwks_uri": issuer + "/jwks", "response_types_supported": ["code"], "subject_types_supported": ["public"],
                "id_token_signing_alg_values_supported": ["ES256"],
            ])
        }
        router.get("jwks") { _, _ -> Response in
            let document = try JSONEncoder().encode(JWKSet(keys: [key.publicKey.jwk]))
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: document)))
        }
        router.get("authorize") { request, _ -> Response in
            let query = request.uri.queryParameters
            guard let redirect = query.get("redirect_uri"), let state = query.get("state"), let email = query.get("login_hint"),
                let nonce = query.get("nonce"), let challenge = query.get("code_challenge")
            else { return Response(status: .badRequest) }
            if email.hasPrefix("refuse") {
                return Response(status: .found, headers: [.location: "\(redirect)?error=access_denied&state=\(state)"])
            }
            let code = try Crypto.randomToken()
            grants.withLock { $0[code] = Grant(email: email, nonce: nonce, challenge: challenge) }
            return Response(status: .found, headers: [.location: "\(redirect)?code=\(code)&state=\(state)"])
        }
        router.post("token") { request, context -> Response in
            let expected = "Basic " + Data("\(clientID):\(clientSecret)".utf8).base64EncodedString()
            guard request.headers[.authorization] == expected else { return Response(status: .unauthorized) }
            struct Form: Decodable {
                var code: String
                var code_verifier: String
            }
            let form = try await URLEncodedFormDecoder().decode(Form.self, from: String(buffer: request.body.collect(upTo: 8192)))
            guard let grant = grants.withLock({ $0.removeValue(forKey: form.code) }),
                Crypto.pkceChallenge(verifier: form.code_verifier) == grant.challenge
            else { return json(["error": "invalid_grant"], status: .badRequest) }
            let issuer = "http://\(request.head.authority ?? "")"
            let now = Int(Date().timeIntervalSince1970)
            let idToken = try JWTSigner(key: key).sign(
                IDToken(
                    iss: issuer, sub: "sub-" + grant.email, aud: clientID, exp: now + 300, iat: now, nonce: grant.nonce,
                    email: grant.email, email_verified: true
                )
            )
            return json(["access_token": try Crypto.randomToken(), "token_type": "Bearer", "expires_in": 300, "id_token": idToken])
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(client.port ?? 0)")
        }
    }

    private struct Grant {
        var email: String
        var nonce: String
        var challenge: String
    }

    private struct IDToken: Encodable {
        var iss, sub, aud: String
        var exp, iat: Int
        var nonce, email: String
        var email_verified: Bool
    }

    private static func json(_ object: [String: Any], status: HTTPResponse.Status = .ok) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data()
        return Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
