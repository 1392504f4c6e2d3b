import Hummingbird
import HummingbirdTesting

/// A live HTTP server that answers OIDC discovery only: enough for `register_device` to
/// build a login URL. The sign-in itself is tested end to end against a real IdP.
enum FakeDiscoveryServer {
    static func run(_ body: @escaping @Sendable (_ issuer: String) async throws -> Void) async throws {
        let router = Router()
        router.get(".well-known/openid-configuration") { request, _ -> Response in
            let issuer = "http://\(request.head.authority ?? "127.0.0.1")"
            let document = """
                {"issuer": "\(issuer)", "authorization_endpoint": "\(issuer)/authorize",
                 "token_endpoint": "\(issuer)/token", "jwks_uri": "\(issuer)/jwks"}
                """
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: document)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(client.port ?? 0)")
        }
    }
}
