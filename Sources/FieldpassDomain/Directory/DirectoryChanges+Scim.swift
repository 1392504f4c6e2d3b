import Foundation

/// SCIM provisioning through the same door as every other change: the IdP alone provisions,
/// and each request is one store transaction that reads, checks and writes.
extension DirectoryChanges {
    package func provisionScimUser(
        email: String, profile: ScimProfile, active: Bool, by caller: DirectoryCaller
    ) async throws
        -> ScimUserRecord
    {
        try Self.requireIdentityProvider(caller)
        return try await store.provisionScimUser(
            email: email, profile: profile, active: active, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// Makes a listed person what `change` says of them as stored, in the transaction that writes them.
    package func updateScimUser(
        id: String, by caller: DirectoryCaller, change: @escaping @Sendable (ScimUserRecord) throws -> ScimUserResource
    ) async throws -> ScimUserRecord {
        try Self.requireIdentityProvider(caller)
        return try await store.updateScimUser(id: id, environmentID: caller.environmentID, actor: caller.actor, now: Date(), change: change)
    }

    package func removeScimUser(id: String, by caller: DirectoryCaller) async throws {
        try Self.requireIdentityProvider(caller)
        try await store.removeScimUser(id: id, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// A team's group, or a role group when `roles_from_idp.map` names it.
    package func createScimGroup(
        displayName: String, externalID: String?, members: [String], by caller: DirectoryCaller
    ) async throws
        -> ScimGroupRecord
    {
        try Self.requireIdentityProvider(caller)
        let mappings = managed(caller)
        let isRoleGroup = ScimGroupRules.isRoleGroup(displayName: displayName, externalID: externalID, mappings: mappings)
        return try await store.createScimGroup(
            kind: isRoleGroup ? .roleGroup : .team, displayName: displayName, externalID: externalID, members: members,
            roles: mappings.roles, environmentID: caller.environmentID, actor: caller.actor, now: Date()
        )
    }

    /// Makes a group what `change` says of it as stored, in the transaction that writes it; a
    /// group stays a team or a role group, as that transaction read it.
    package func updateScimGroup(
        id: String, by caller: DirectoryCaller, change: @escaping @Sendable (ScimGroupRecord) throws -> ScimGroupResource
    ) async throws -> ScimGroupRecord {
        try Self.requireIdentityProvider(caller)
        let mappings = managed(caller)
        return try await store.updateScimGroup(
            id: id, roles: mappings.roles, environmentID: caller.environmentID, actor: caller.actor, now: Date()
        ) { current in
            let wanted = try change(current)
            try ScimGroupRules.checkKind(of: current, as: wanted, mappings: mappings)
            return wanted
        }
    }

    /// A team's group goes with its team; a role group's members leave it, their roles following.
    package func deleteScimGroup(_ group: ScimGroupRecord, by caller: DirectoryCaller) async throws {
        try Self.requireIdentityProvider(caller)
        if let teamID = group.teamID {
            try await deleteTeam(id: teamID, by: caller)
        } else {
            try await store.deleteScimGroup(
                id: group.id, roles: managed(caller).roles, environmentID: caller.environmentID, actor: caller.actor, now: Date())
        }
    }

    /// SCIM is the IdP's: no other caller provisions.
    private static func requireIdentityProvider(_ caller: DirectoryCaller) throws {
        guard case .scim = caller else { throw DirectoryError.notAllowed(.administer) }
    }
}
