import Foundation

/// Teams and their members: SCIM groups are the IdP's, and so are the members of teams the
/// sign-in's claims set; only the IdP itself changes those (``DirectoryAuthority``).
extension DirectoryChanges {
    package func createTeam(name: String, by caller: DirectoryCaller) async throws -> TeamRecord {
        try await store.createTeam(name: name, by: caller, now: Date())
    }

    package func renameTeam(id teamID: String, to name: String, by caller: DirectoryCaller) async throws -> TeamRecord {
        try await store.renameTeam(id: teamID, to: name, by: caller, now: Date())
    }

    package func deleteTeam(id teamID: String, by caller: DirectoryCaller) async throws {
        try await store.deleteTeam(id: teamID, by: caller, now: Date())
    }

    /// Adds (`member: true`) or removes a person's membership of a team.
    package func changeMembership(userID: String, teamID: String, member: Bool, by caller: DirectoryCaller) async throws -> TeamRecord {
        try await store.changeMembership(userID: userID, teamID: teamID, member: member, by: caller, managed: managed(caller), now: Date())
    }

    /// Whether the IdP owns the team's name, existence and members: a SCIM group, or (for
    /// members only) a team the claims set at every sign-in. For a page to say so.
    package func teamIsManaged(_ team: TeamRecord, environmentID: String) async throws -> (scim: Bool, members: Bool) {
        let scim = try await store.isScimManaged(userID: nil, teamID: team.id, environmentID: environmentID)
        let claims = (try? claimMappings.mappings(environmentID: environmentID).checkMembershipChange(teamName: team.name)) == nil
        return (scim, scim || claims)
    }
}
