import Foundation
import Hummingbird
import Tokens

/// `GET /.well-known/jwks.json`, the authorization server metadata, and `GET /healthz`.
///
/// Both documents are encoded once at start-up: keys only change with a restart.
struct DiscoveryController: Sendable {
    let jwks: ByteBuffer
    let metadata: ByteBuffer

    init(keyRing: KeyRing, issuer: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        jwks = ByteBuffer(bytes: try encoder.encode(keyRing.jwks))
        let algorithms = Set(keyRing.jwks.keys.compactMap(\.alg)).sorted()
        metadata = ByteBuffer(bytes: try encoder.encode(AuthorizationServerMetadata(issuer: issuer, signingAlgorithms: algorithms)))
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(".well-known/jwks.json") { _, _ in
            Self.document(jwks, contentType: "application/jwk-set+json")
        }
        for path in [".well-known/oauth-authorization-server", ".well-known/openid-configuration"] {
            router.get(RouterPath(path)) { _, _ in Self.document(metadata, contentType: "application/json") }
        }
        router.get("healthz") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
    }

    private static func document(_ body: ByteBuffer, contentType: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: contentType, .cacheControl: "public, max-age=300"],
            body: .init(byteBuffer: body)
        )
    }
}
