import Foundation
import Hummingbird

/// `GET /.well-known/jwks.json`, the authorization server metadata, and `GET /healthz`.
///
/// Both documents are encoded once each time the published keys change.
struct DiscoveryController: Sendable {
    let keys: KeyRotation

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(".well-known/jwks.json") { _, _ in
            Self.document(keys.published().jwks, contentType: "application/jwk-set+json")
        }
        for path in [".well-known/oauth-authorization-server", ".well-known/openid-configuration"] {
            router.get(RouterPath(path)) { _, _ in Self.document(keys.published().metadata, contentType: "application/json") }
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
