import FieldpassDomain
import Foundation

/// Teams and their members: SCIM groups are the IdP's, and so are the members of teams the
/// sign-in's claims set; only the IdP itself changes those.
extension DirectoryChanges {
    func createTeam(name: String, by caller: DirectoryCaller) async throws -> TeamRecord {
        try authorize(caller, .administer)
        return try await store.createTeam(name: name, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    func renameTeam(id teamID: String, to name: String, by caller: DirectoryCaller) async throws -> TeamRecord {
        try authorize(caller, .administer)
        try await checkNotProvisioned(teamID: teamID, caller)
        return try await store.renameTeam(id: teamID, to: name, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    func deleteTeam(id teamID: String, by caller: DirectoryCaller) async throws {
        try authorize(caller, .administer)
        try await checkNotProvisioned(teamID: teamID, caller)
        try await store.deleteTeam(id: teamID, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// Adds (`member: true`) or removes a person's membership of a team.
    func changeMembership(userID: String, teamID: String, member: Bool, by caller: DirectoryCaller) async throws -> TeamRecord {
        try authorize(caller, .administer)
        let environmentID = caller.environmentID
        try await checkNotProvisioned(teamID: teamID, caller)
        let mappings = claimMappings.mappings(environmentID: environmentID)
        if !caller.isIdentityProvider, mappings.teams != nil {
            guard let team = try await store.team(id: teamID, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
            guard try await store.user(id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
            try mappings.checkMembershipChange(teamName: team.name)
        }
        return try await store.changeMembership(
            userID: userID, teamID: teamID, environmentID: environmentID, actor: caller.actor, now: Date(), member: member
        )
    }

    /// Whether the IdP owns the team's name, existence and members: a SCIM group, or (for
    /// members only) a team the claims set at every sign-in.
    func teamIsManaged(_ team: TeamRecord, environmentID: String) async throws -> (scim: Bool, members: Bool) {
        let scim = try await store.isScimManaged(userID: nil, teamID: team.id, environmentID: environmentID)
        let claims = (try? claimMappings.mappings(environmentID: environmentID).checkMembershipChange(teamName: team.name)) == nil
        return (scim, scim || claims)
    }

    /// Refuses a change to a SCIM group's team unless the caller is the IdP.
    private func checkNotProvisioned(teamID: String, _ caller: DirectoryCaller) async throws {
        guard !caller.isIdentityProvider else { return }
        if try await store.isScimManaged(userID: nil, teamID: teamID, environmentID: caller.environmentID) {
            throw ScimManagement.teamManaged
        }
    }
}
