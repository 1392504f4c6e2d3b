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
    let router: ScimRouter
    let claimMappings: ClaimMappingDirectory

    static let collection: RouterPath = "Groups"
    static let item: RouterPath = "Groups/:id"

    static let filterable = ScimGroupResource.filterable

    func page(_ call: ScimCall, filter: (attribute: String, value: String)?, offset: Int, limit: Int) async throws -> ScimPage<ScimGroupRecord> {
        try await store.scimGroups(environmentID: call.environment.id, filter: filter, offset: offset, limit: limit)
    }

    static func render(_ record: ScimGroupRecord, baseURL: String) -> [String: ScimJSON] {
        ScimRepresentation.group(record, baseURL: baseURL)
    }

    @Sendable func create(_ call: ScimCall, context: AppRequestContext) async throws -> Response {
        let resource = try ScimGroupResource.parse(try await call.body())
        let environmentID = call.environment.id
        try await checkMembers(resource.members, call)
        let mappings = claimMappings.mappings(environmentID: environmentID)
        let now = Date()
        let record: ScimGroupRecord
        if ScimGroupRules.isRoleGroup(displayName: resource.displayName, externalID: resource.externalID, mappings: mappings) {
            guard try await store.scimGroups(
                environmentID: environmentID, filter: ("displayName", resource.displayName), offset: 0, limit: 1
            ).total == 0 else { throw ScimError.uniqueness("A group with this displayName exists already.") }
            record = try await store.createScimGroup(
                teamID: nil, displayName: resource.displayName, externalID: resource.externalID, environmentID: environmentID,
                actor: ScimCall.actor, now: now
            )
        } else {
            let team = try await teamNamed(resource.displayName, environmentID: environmentID, now: now)
            guard try await !store.isScimManaged(userID: nil, teamID: team.id, environmentID: environmentID) else {
                throw ScimError.uniqueness("A group with this displayName exists already.")
            }
            record = try await store.createScimGroup(
                teamID: team.id, displayName: team.name, externalID: resource.externalID, environmentID: environmentID,
                actor: ScimCall.actor, now: now
            )
        }
        let saved = try await setMembers(resource.members, of: record, call)
        return try ScimResponse.json(
            .object(ScimRepresentation.group(saved, baseURL: call.baseURL)), status: .created, location: "\(call.baseURL)/Groups/\(saved.id)"
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
        let (environmentID, now) = (call.environment.id, Date())
        if let teamID = record.teamID {
            try await store.deleteTeam(id: teamID, environmentID: environmentID, actor: ScimCall.actor, now: now)
        } else {
            _ = try await setMembers([], of: record, call)
            try await store.deleteScimGroup(id: record.id, environmentID: environmentID, actor: ScimCall.actor, now: now)
        }
        return Response(status: .noContent)
    }

    private func save(_ resource: ScimGroupResource, over current: ScimGroupRecord, _ call: ScimCall) async throws -> Response {
        let environmentID = call.environment.id
        try await checkMembers(resource.members, call)
        let mappings = claimMappings.mappings(environmentID: environmentID)
        let isRoleGroup = ScimGroupRules.isRoleGroup(displayName: resource.displayName, externalID: resource.externalID, mappings: mappings)
        guard isRoleGroup == (current.teamID == nil) else {
            throw ScimError.mutability("A group cannot change between a team and a role group; delete it and create it anew.")
        }
        let now = Date()
        if let teamID = current.teamID, resource.displayName != current.displayName {
            _ = try await store.renameTeam(id: teamID, to: resource.displayName, environmentID: environmentID, actor: ScimCall.actor, now: now)
        }
        if resource.displayName != current.displayName || resource.externalID != current.externalID {
            try await store.updateScimGroup(
                id: current.id, displayName: resource.displayName, externalID: resource.externalID,
                roles: { ScimGroupRules.role(groupKeys: $0, mappings: mappings) }, environmentID: environmentID, actor: ScimCall.actor, now: now
            )
        }
        let saved = try await setMembers(resource.members, of: current, call)
        return try ScimResponse.json(.object(ScimRepresentation.group(saved, baseURL: call.baseURL)))
    }

    /// Makes `wanted` the group's members, and sets the role of everyone whose role groups changed.
    private func setMembers(_ wanted: [String], of group: ScimGroupRecord, _ call: ScimCall) async throws -> ScimGroupRecord {
        let (environmentID, now) = (call.environment.id, Date())
        let (added, removed) = ScimGroupRules.membershipChanges(current: group.members, wanted: wanted)
        for (userID, member) in added.map({ ($0, true) }) + removed.map({ ($0, false) }) {
            if let teamID = group.teamID {
                _ = try await store.changeMembership(
                    userID: userID, teamID: teamID, environmentID: environmentID, actor: ScimCall.actor, now: now, member: member
                )
            } else {
                try await store.changeRoleGroupMembership(
                    groupID: group.id, userID: userID, member: member, environmentID: environmentID, actor: ScimCall.actor, now: now
                )
                try await updateRole(userID: userID, call)
            }
        }
        guard let saved = try await store.scimGroup(id: group.id, environmentID: environmentID) else { throw ScimError.notFound("No such group.") }
        return saved
    }

    private func updateRole(userID: String, _ call: ScimCall) async throws {
        let environmentID = call.environment.id
        let keys = try await store.roleGroupKeys(userID: userID, environmentID: environmentID)
        guard let role = ScimGroupRules.role(groupKeys: keys, mappings: claimMappings.mappings(environmentID: environmentID)) else { return }
        _ = try await store.setRole(role, userID: userID, environmentID: environmentID, actor: ScimCall.actor, now: Date())
    }

    /// Every member must be a person SCIM lists in this environment; otherwise nothing changes.
    private func checkMembers(_ members: [String], _ call: ScimCall) async throws {
        for id in members where try await store.scimUser(id: id, environmentID: call.environment.id) == nil {
            throw ScimError.invalidValue("Member \(id.prefix(64)) is not a user of this environment.")
        }
    }

    /// The team with this name (any case), created when there is none.
    private func teamNamed(_ name: String, environmentID: String, now: Date) async throws -> TeamRecord {
        if let team = try await store.teams(environmentID: environmentID).first(where: { $0.name.lowercased() == name.lowercased() }) {
            return team
        }
        return try await store.createTeam(name: name, environmentID: environmentID, actor: ScimCall.actor, now: now)
    }

    func existing(_ id: String, _ call: ScimCall) async throws -> ScimGroupRecord {
        guard let record = try await store.scimGroup(id: id, environmentID: call.environment.id) else {
            throw ScimError.notFound("No such group.")
        }
        return record
    }
}
