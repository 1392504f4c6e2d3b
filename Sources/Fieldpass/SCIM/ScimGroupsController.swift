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
    /// Teams are created and deleted as every caller's are, with the caller `scim`.
    let changes: DirectoryChanges
    let router: ScimRouter
    let claimMappings: ClaimMappingDirectory

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
        let environmentID = call.environment.id
        try await checkJoining(resource.members, call)
        let mappings = claimMappings.mappings(environmentID: environmentID)
        let isRoleGroup = ScimGroupRules.isRoleGroup(displayName: resource.displayName, externalID: resource.externalID, mappings: mappings)
        let saved = try await store.createScimGroup(
            kind: isRoleGroup ? .roleGroup : .team, displayName: resource.displayName, externalID: resource.externalID,
            members: resource.members, roles: mappings.roles, environmentID: environmentID, actor: call.caller.actor, now: Date()
        )
        return try ScimResponse.json(
            .object(ScimRepresentation.group(saved, baseURL: call.baseURL)), status: .created,
            location: "\(call.baseURL)/Groups/\(saved.id)"
        )
    }

    @Sendable func replace(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let id = try call.id(context)
        let current = try await existing(id, call)
        return try await save(try ScimGroupResource.parse(try await call.body()), over: current, call)
    }

    @Sendable func patch(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let id = try call.id(context)
        let operations = try ScimPatch.operations(try await call.body())
        let current = try await existing(id, call)
        let patched = try ScimPatch.apply(operations, to: ScimGroupResource.attributes(of: current))
        return try await save(try ScimGroupResource.parse(.object(patched)), over: current, call)
    }

    @Sendable func delete(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let record = try await existing(try call.id(context), call)
        let environmentID = call.environment.id
        if let teamID = record.teamID {
            try await changes.deleteTeam(id: teamID, by: call.caller)
        } else {
            let mappings = claimMappings.mappings(environmentID: environmentID)
            try await store.deleteScimGroup(
                id: record.id, roles: mappings.roles, environmentID: environmentID, actor: call.caller.actor, now: Date())
        }
        return Response(status: .noContent)
    }

    /// PUT and PATCH alike: the whole group as it should be, stored in one transaction.
    private func save(_ resource: ScimGroupResource, over current: ScimGroupRecord, _ call: ScimCall) async throws -> Response {
        let environmentID = call.environment.id
        try await checkJoining(ScimGroupRules.membershipChanges(current: current.members, wanted: resource.members).added, call)
        let mappings = claimMappings.mappings(environmentID: environmentID)
        let isRoleGroup = ScimGroupRules.isRoleGroup(displayName: resource.displayName, externalID: resource.externalID, mappings: mappings)
        guard isRoleGroup == (current.teamID == nil) else {
            throw ScimError.mutability("A group cannot change between a team and a role group; delete it and create it anew.")
        }
        let saved = try await store.saveScimGroup(
            id: current.id, displayName: resource.displayName, externalID: resource.externalID, members: resource.members,
            roles: mappings.roles, environmentID: environmentID, actor: call.caller.actor, now: Date()
        )
        return try Self.answer(ScimRepresentation.group(saved, baseURL: call.baseURL), call)
    }

    /// Everyone who joins must be a person SCIM lists in this environment; otherwise nothing
    /// changes. Who is in the group already is one (a person SCIM removes leaves its groups'
    /// lists), so a PATCH of one member of 10,000 reads one person, not 10,000.
    private func checkJoining(_ members: [String], _ call: ScimCall) async throws {
        for id in members where try await store.scimUser(id: id, environmentID: call.environment.id) == nil {
            throw ScimError.invalidValue("Member \(id.prefix(64)) is not a user of this environment.")
        }
    }

    func existing(_ id: String, _ call: ScimCall) async throws -> ScimGroupRecord {
        guard let record = try await store.scimGroup(id: id, environmentID: call.environment.id) else {
            throw ScimError.notFound("No such group.")
        }
        return record
    }
}
