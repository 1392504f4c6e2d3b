import FieldpassDomain
import Hummingbird

/// A SCIM resource collection (`/Users`, `/Groups`): the six routes RFC 7644 §3 gives it.
protocol ScimResourceController: Sendable {
    associatedtype Record: Sendable

    var router: ScimRouter { get }
    /// Attributes a `filter` may compare.
    static var filterable: [String] { get }
    /// One page of the environment's resources, filtered.
    func page(_ call: ScimCall, filter: (attribute: String, value: String)?, offset: Int, limit: Int) async throws -> ScimPage<Record>
    static func render(_ record: Record, baseURL: String) -> [String: ScimJSON]
    /// The environment's resource `id`, or ``ScimError/notFound(_:)``.
    func existing(_ id: String, _ call: ScimCall) async throws -> Record
    /// `Users` or `Groups`.
    static var collection: RouterPath { get }
    static var item: RouterPath { get }

    func create(_ call: ScimCall, context: AppRequestContext) async throws -> Response
    func replace(_ call: ScimCall, context: AppRequestContext) async throws -> Response
    func patch(_ call: ScimCall, context: AppRequestContext) async throws -> Response
    func delete(_ call: ScimCall, context: AppRequestContext) async throws -> Response
}

extension ScimResourceController {
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        router.on(group, Self.collection, .get) { call, _ in try await list(call, parameters: call.query) }
        router.on(group, "\(Self.collection)/.search", .post) { call, _ in
            try await list(call, parameters: try await call.searchParameters())
        }
        router.on(group, Self.collection, .post, use: create)
        router.on(group, Self.item, .get, use: show)
        router.on(group, Self.item, .put, use: replace)
        router.on(group, Self.item, .patch, use: patch)
        router.on(group, Self.item, .delete, use: delete)
    }

    /// A list or search request: `filter` on one of ``filterable``, `startIndex` and `count`,
    /// and the projection (`attributes`, `excludedAttributes`).
    func list(_ call: ScimCall, parameters: [String: String]) async throws -> Response {
        let filter = try parameters["filter"].map { try ScimFilter.parse($0, attributes: Self.filterable) }
        let (startIndex, count) = try ScimCall.paging(parameters)
        let page = try await page(call, filter: filter.map { ($0.attribute, $0.value) }, offset: startIndex - 1, limit: count)
        return try ScimResponse.list(
            page.items.map { ScimRepresentation.project(Self.render($0, baseURL: call.baseURL), query: parameters) },
            total: page.total, startIndex: startIndex
        )
    }

    @Sendable func show(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        try Self.answer(Self.render(try await existing(try call.id(context), call), baseURL: call.baseURL), call)
    }

    /// One resource, projected as the query asks: for a read, and for the answer to a PUT or
    /// PATCH (RFC 7644 §3.9), where `excludedAttributes=members` spares an IdP the 10,000
    /// members of a group it changed one member of.
    static func answer(_ body: [String: ScimJSON], _ call: ScimCall) throws -> Response {
        try ScimResponse.json(ScimRepresentation.project(body, query: call.query))
    }
}
