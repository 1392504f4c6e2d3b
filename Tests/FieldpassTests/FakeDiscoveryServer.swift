import Hummingbird
import HummingbirdTesting

/// A live HTTP server that answers OIDC discovery only: enough for `register_device` to
/// build a login URL. The sign-in itself is tested end to end against a real IdP.
enum FakeDiscoveryServer {
    /// `issuerSuffix` is appended to the issuer the document names (e.g. `/`, as some IdPs have).
    static func run(issuerSuffix: String = "", _ body: @escaping @Sendable (_ issuer: String) async throws -> Void) async throws {
        let router = Router()
        router.get(".well-known/openid-configuration") { request, _ -> Response in
            let issuer = "http://\(request.head.authority ?? "127.0.0.1")\(issuerSuffix)"
            let document = """
                {"issuer": "\(issuer)", "authorization_endpoint": "http://\(request.head.authority ?? "")/authorize",
                 "token_endpoint": "http://\(request.head.authority ?? "")/token", "jwks_uri": "http://\(request.head.authority ?? "")/jwks"}
                """
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: document)))
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body("http://127.0.0.1:\(client.port ?? 0)")
        }
    }
}
