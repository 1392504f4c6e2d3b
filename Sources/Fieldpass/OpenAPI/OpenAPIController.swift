import Hummingbird

/// `GET /openapi.json`: the OpenAPI 3.1 document of every route, kept in the repository
/// (`Sources/Fieldpass/OpenAPI/openapi.json`) and compiled into the binary.
struct OpenAPIController: Sendable {
    /// The document, as written in the repository.
    static let document = ByteBuffer(bytes: PackageResources.openapi_json)

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("openapi.json") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
                body: .init(byteBuffer: Self.document)
            )
        }
    }
}
