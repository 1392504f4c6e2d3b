import FieldpassDomain
import Foundation
import Hummingbird

/// `/scim/v2/Groups`: teams (`displayName` the team's name, `members` its people), or role
/// groups, whose name or external id `roles_from_idp.map` names: their members get that role
/// (the highest of their role groups, else `roles_from_idp.default`).
///
/// A group named like a team that admins made takes that team over. A group stays what it
/// was created as: a change of name that would turn a team into a role group is refused.
struct ScimGroupsController: ScimResourceController {
    let store: any FieldpassStore
    /// Every change goes through the directory's one door, with the caller `scim`.
    let changes: DirectoryChanges
    let router: ScimRouter

    static let collection: RouterPath = "Groups"
    static let item: RouterPath = "Groups/:id"

    static let filterable = ScimGroupResource.filterable

    func page(
        _ call: ScimCall, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimGroupRecord> {
        try await store.scimGroups(environmentID: call.environment.id, filter: filter, offset: offset, limit: limit)
    }

    static func render(_ record: ScimGroupRecord, baseURL: String) -> [String: ScimJSON] {
        ScimRepresentation.group(record, baseURL: baseURL)
    }

    @Sendable func create(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let resource = try ScimGroupResource.parse(try await call.body())
        let saved = try await changes.createScimGroup(
            displayName: resource.displayName, externalID: resource.externalID, members: resource.members, by: call.caller)
        return try ScimResponse.json(
            .object(ScimRepresentation.group(saved, baseURL: call.baseURL)), status: .created,
            location: "\(call.baseURL)/Groups/\(saved.id)"
        )
    }

    @Sendable func replace(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let id = try call.id(context)
        let body = try await call.body()
        return try await update(id, call) { _ in try ScimGroupResource.parse(body) }
    }

    @Sendable func patch(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let id = try call.id(context)
        let operations = try ScimPatch.operations(try await call.body())
        return try await update(id, call) { current in
            try ScimGroupResource.parse(.object(try ScimPatch.apply(operations, to: ScimGroupResource.attributes(of: current))))
        }
    }

    @Sendable func delete(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        try await changes.deleteScimGroup(try await existing(try call.id(context), call), by: call.caller)
        return Response(status: .noContent)
    }

    /// PUT and PATCH alike: `resource` makes the whole group as it should be of the group as
    /// stored, inside the transaction that writes it (``DirectoryChanges/updateScimGroup(id:by:change:)``),
    /// which also reads whether everyone joining is a person SCIM lists.
    private func update(
        _ id: String, _ call: ScimCall, _ resource: @escaping @Sendable (ScimGroupRecord) throws -> ScimGroupResource
    ) async throws -> Response {
        let saved = try await changes.updateScimGroup(id: id, by: call.caller, change: resource)
        return try Self.answer(ScimRepresentation.group(saved, baseURL: call.baseURL), call)
    }

    func existing(_ id: String, _ call: ScimCall) async throws -> ScimGroupRecord {
        guard let record = try await store.scimGroup(id: id, environmentID: call.environment.id) else {
            throw ScimError.notFound("No such group.")
        }
        return record
    }
}
