import Foundation
import Hummingbird
import Tokens

/// `GET /.well-known/jwks.json` and `GET /healthz`.
///
/// The key set is encoded once at start-up: keys only change with a restart.
struct DiscoveryController: Sendable {
    let jwks: ByteBuffer

    init(keyRing: KeyRing) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        jwks = ByteBuffer(bytes: try encoder.encode(keyRing.jwks))
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get(".well-known/jwks.json") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/jwk-set+json"
            headers[.cacheControl] = "public, max-age=300"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: jwks))
        }
        router.get("healthz") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: #"{"status":"ok"}"#)))
        }
    }
}
