import FieldpassDomain
import Hummingbird

/// A SCIM resource collection (`/Users`, `/Groups`): the six routes RFC 7644 §3 gives it.
protocol ScimResourceController: Sendable {
    var router: ScimRouter { get }
    /// `Users` or `Groups`.
    static var collection: RouterPath { get }
    static var item: RouterPath { get }

    func list(_ call: ScimCall, context: AppRequestContext) async throws -> Response
    func create(_ call: ScimCall, context: AppRequestContext) async throws -> Response
    func show(_ call: ScimCall, context: AppRequestContext) async throws -> Response
    func replace(_ call: ScimCall, context: AppRequestContext) async throws -> Response
    func patch(_ call: ScimCall, context: AppRequestContext) async throws -> Response
    func delete(_ call: ScimCall, context: AppRequestContext) async throws -> Response
}

extension ScimResourceController {
    func addRoutes(to group: RouterGroup<AppRequestContext>) {
        router.on(group, Self.collection, .get, use: list)
        router.on(group, Self.collection, .post, use: create)
        router.on(group, Self.item, .get, use: show)
        router.on(group, Self.item, .put, use: replace)
        router.on(group, Self.item, .patch, use: patch)
        router.on(group, Self.item, .delete, use: delete)
        router.refuse(group, Self.collection, except: [.get, .post])
    }

    /// A list request: `filter` on one of `filterable`, `startIndex` and `count`, and the projection.
    func listPage<Record: Sendable>(
        _ call: ScimCall, filterable: [String], render: (Record, String) -> [String: ScimJSON],
        fetch: ((attribute: String, value: String)?, Int, Int) async throws -> ScimPage<Record>
    ) async throws -> Response {
        let filter = try call.request.uri.queryParameters.get("filter").map { try ScimFilter.parse($0, attributes: filterable) }
        let (startIndex, count) = try call.paging()
        let page = try await fetch(filter.map { ($0.attribute, $0.value) }, startIndex - 1, count)
        let projection = Self.query(call)
        return try ScimResponse.list(
            page.items.map { ScimRepresentation.project(render($0, call.baseURL), query: projection) }, total: page.total, startIndex: startIndex
        )
    }

    /// One resource, projected as the query asks.
    static func answer(_ body: [String: ScimJSON], _ call: ScimCall) throws -> Response {
        try ScimResponse.json(ScimRepresentation.project(body, query: query(call)))
    }

    /// The query's parameters, for ``ScimRepresentation/project(_:query:)``.
    static func query(_ call: ScimCall) -> [String: String] {
        var query: [String: String] = [:]
        for (key, value) in call.request.uri.queryParameters { query[String(key)] = String(value) }
        return query
    }
}
