import FieldpassDomain
import Hummingbird

/// `POST /scim/v2/.search` (RFC 7644 §3.4.3): users, then groups, as one list. A filter
/// applies to the resource types that have its attribute; the others match nothing.
struct ScimRootSearch: Sendable {
    let users: ScimUsersController
    let groups: ScimGroupsController

    func answer(_ call: ScimCall) async throws -> Response {
        let parameters = try await call.searchParameters()
        let filter = try parameters["filter"].map {
            try ScimFilter.parse($0, attributes: Array(Set(ScimUsersController.filterable + ScimGroupsController.filterable)))
        }
        let (startIndex, count) = try ScimCall.paging(parameters)
        func applies(_ filterable: [String]) -> Bool { filter.map { filterable.contains($0.attribute) } ?? true }
        let condition = filter.map { ($0.attribute, $0.value) }
        let offset = startIndex - 1
        let userPage =
            applies(ScimUsersController.filterable)
            ? try await users.page(call, filter: condition, offset: offset, limit: count) : ScimPage(total: 0, items: [])
        let remaining = count - userPage.items.count
        let groupPage =
            applies(ScimGroupsController.filterable)
            ? try await groups.page(call, filter: condition, offset: max(0, offset - userPage.total), limit: remaining)
            : ScimPage(total: 0, items: [])
        let resources =
            userPage.items.map { ScimUsersController.render($0, baseURL: call.baseURL) }
            + groupPage.items.map { ScimGroupsController.render($0, baseURL: call.baseURL) }
        return try ScimResponse.list(
            resources.map { ScimRepresentation.project($0, query: parameters) }, total: userPage.total + groupPage.total,
            startIndex: startIndex
        )
    }
}
