import FieldpassDomain
import Foundation
import Hummingbird

/// `/admin/teams…`: teams and their members. Admins and managers may read; only admins may change.
struct AdminTeamsController: Sendable {
    let directory: any DirectoryStore
    let changes: DirectoryChanges

    func addRoutes(to routes: DirectoryRoutes) {
        routes.on(.get, "teams", .read, use: list)
        routes.on(.post, "teams", .administer, use: create)
        routes.on(.get, "teams/:team_id", .read, use: show)
        routes.on(.patch, "teams/:team_id", .administer, use: rename)
        routes.on(.delete, "teams/:team_id", .administer, use: delete)
        routes.on(.put, "teams/:team_id/members/:user_id", .administer, use: addMember)
        routes.on(.delete, "teams/:team_id/members/:user_id", .administer, use: removeMember)
    }

    @Sendable func list(_ request: Request, context: IdentifiedRequestContext) async throws -> AdminResponses.Teams {
        return AdminResponses.Teams(teams: try await directory.teams(environmentID: context.identity.environmentID))
    }

    @Sendable func create(_ request: Request, context: IdentifiedRequestContext) async throws -> EditedResponse<TeamRecord> {
        let name = try await JSONBody.decode(AdminRequests.TeamName.self, from: request, context: context).validated()
        let team = try await changes.createTeam(name: name, by: context.identity.directoryCaller)
        return EditedResponse(status: .created, response: team)
    }

    @Sendable func show(_ request: Request, context: IdentifiedRequestContext) async throws -> TeamRecord {
        guard let team = try await directory.team(id: try teamID(context), environmentID: context.identity.environmentID) else {
            throw DirectoryError.unknownTeam
        }
        return team
    }

    @Sendable func rename(_ request: Request, context: IdentifiedRequestContext) async throws -> TeamRecord {
        let name = try await JSONBody.decode(AdminRequests.TeamName.self, from: request, context: context).validated()
        return try await changes.renameTeam(id: try teamID(context), to: name, by: context.identity.directoryCaller)
    }

    @Sendable func delete(_ request: Request, context: IdentifiedRequestContext) async throws -> Response {
        try await changes.deleteTeam(id: try teamID(context), by: context.identity.directoryCaller)
        return Response(status: .noContent)
    }

    @Sendable func addMember(_ request: Request, context: IdentifiedRequestContext) async throws -> TeamRecord {
        try await changeMembership(context, member: true)
    }

    @Sendable func removeMember(_ request: Request, context: IdentifiedRequestContext) async throws -> TeamRecord {
        try await changeMembership(context, member: false)
    }

    private func changeMembership(_ context: IdentifiedRequestContext, member: Bool) async throws -> TeamRecord {
        return try await changes.changeMembership(
            userID: try memberID(context), teamID: try teamID(context), member: member, by: context.identity.directoryCaller)
    }

    private func teamID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("team_id") ?? "", unknown: .unknownTeam)
    }

    private func memberID(_ context: IdentifiedRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
    }
}
