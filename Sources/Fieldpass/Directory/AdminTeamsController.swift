import FieldpassDomain
import Foundation
import Hummingbird

/// `/admin/teams…`: teams and their members. Admins and managers may read; only admins may change.
struct AdminTeamsController: Sendable {
    let directory: any DirectoryStore
    /// Where the IdP sets a team's members at every sign-in, membership changes are refused
    /// (`managed_by_idp`).
    let claimMappings: ClaimMappingDirectory
    /// A team that is a SCIM group is the IdP's: no admin changes it (``ScimManagement``).
    let scim: any ScimStore

    func addRoutes(to group: RouterGroup<IdentifiedRequestContext>) {
        group.get("teams", use: list)
        group.post("teams", use: create)
        group.get("teams/:team_id", use: show)
        group.patch("teams/:team_id", use: rename)
        group.delete("teams/:team_id", use: delete)
        group.put("teams/:team_id/members/:user_id", use: addMember)
        group.delete("teams/:team_id/members/:user_id", use: removeMember)
    }

    @Sendable func list(_ request: Request, context: IdentifiedRequestContext) async throws -> AdminResponses.Teams {
        try context.identity.requireStaff()
        return AdminResponses.Teams(teams: try await directory.teams(environmentID: context.identity.environmentID))
    }

    @Sendable func create(_ request: Request, context: IdentifiedRequestContext) async throws -> EditedResponse<TeamRecord> {
        try context.identity.requireAdmin()
        let name = try await JSONBody.decode(AdminRequests.TeamName.self, from: request, context: context).validated()
        let team = try await directory.createTeam(
            name: name, environmentID: context.identity.environmentID, actor: context.identity.actor, now: Date()
        )
        return EditedResponse(status: .created, response: team)
    }

    @Sendable func show(_ request: Request, context: IdentifiedRequestContext) async throws -> TeamRecord {
        try context.identity.requireStaff()
        guard let team = try await directory.team(id: try teamID(context), environmentID: context.identity.environmentID) else {
            throw DirectoryError.unknownTeam
        }
        return team
    }

    @Sendable func rename(_ request: Request, context: IdentifiedRequestContext) async throws -> TeamRecord {
        try context.identity.requireAdmin()
        let name = try await JSONBody.decode(AdminRequests.TeamName.self, from: request, context: context).validated()
        try await checkNotProvisioned(teamID: try teamID(context), context)
        return try await directory.renameTeam(
            id: try teamID(context), to: name, environmentID: context.identity.environmentID,
            actor: context.identity.actor, now: Date()
        )
    }

    @Sendable func delete(_ request: Request, context: IdentifiedRequestContext) async throws -> Response {
        try context.identity.requireAdmin()
        try await checkNotProvisioned(teamID: try teamID(context), context)
        try await directory.deleteTeam(
            id: try teamID(context), environmentID: context.identity.environmentID, actor: context.identity.actor, now: Date()
        )
        return Response(status: .noContent)
    }

    @Sendable func addMember(_ request: Request, context: IdentifiedRequestContext) async throws -> TeamRecord {
        try await changeMembership(context, member: true)
    }

    @Sendable func removeMember(_ request: Request, context: IdentifiedRequestContext) async throws -> TeamRecord {
        try await changeMembership(context, member: false)
    }

    private func changeMembership(_ context: IdentifiedRequestContext, member: Bool) async throws -> TeamRecord {
        try context.identity.requireAdmin()
        let (userID, teamID, environmentID) = (try memberID(context), try teamID(context), context.identity.environmentID)
        try await checkNotProvisioned(teamID: teamID, context)
        let mappings = claimMappings.mappings(environmentID: environmentID)
        if mappings.teams != nil {
            guard let team = try await directory.team(id: teamID, environmentID: environmentID) else { throw DirectoryError.unknownTeam }
            guard try await directory.user(id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
            try mappings.checkMembershipChange(teamName: team.name)
        }
        return try await directory.changeMembership(
            userID: userID, teamID: teamID, environmentID: environmentID, actor: context.identity.actor, now: Date(), member: member
        )
    }

    private func checkNotProvisioned(teamID: String, _ context: IdentifiedRequestContext) async throws {
        if try await scim.isScimManaged(userID: nil, teamID: teamID, environmentID: context.identity.environmentID) {
            throw ScimManagement.teamManaged
        }
    }

    private func teamID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("team_id") ?? "", unknown: .unknownTeam)
    }

    private func memberID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
    }
}
