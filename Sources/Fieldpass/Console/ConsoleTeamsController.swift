import FieldpassDomain
import Foundation
import Hummingbird

/// `/console/teams…`: teams, their members, and the changes an admin may make to them
/// (through ``DirectoryChanges``, as the admin API).
struct ConsoleTeamsController: Sendable {
    let store: any FieldpassStore
    let changes: DirectoryChanges
    let pages: ConsolePages
    /// The team's realm is shown as tokens carry it, under the environment's prefix.
    let prefixes: RealmPrefixes

    func addRoutes(to group: RouterGroup<ConsoleRequestContext>) {
        group.get("teams", use: list)
        group.post("teams", use: create)
        group.get("teams/:team_id", use: show)
        group.post("teams/:team_id/rename", use: rename)
        group.post("teams/:team_id/delete", use: delete)
        group.post("teams/:team_id/members", use: addMember)
        group.post("teams/:team_id/members/:user_id/remove", use: removeMember)
    }

    @Sendable func list(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let teams = try await store.teamSummaries(environmentID: context.visit.identity.environmentID, viewer: context.visit.user.id)
            .sorted { $0.name.lowercased() < $1.name.lowercased() }
        let view = TeamsView(
            chrome: pages.chrome("Teams", context, .teams), canChange: context.visit.isAdmin,
            teams: teams.map { Summary(id: $0.id, name: $0.name, members: $0.memberCount) }
        )
        return pages.renderer.page("teams", view)
    }

    @Sendable func create(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        try await pages.change(context, back: "/teams") {
            let name = try AdminRequests.TeamName(name: context.visit.form["name"] ?? "").validated()
            _ = try await changes.createTeam(name: name, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let environmentID = context.visit.identity.environmentID
        guard let teamID = try? teamID(context), let team = try await store.team(id: teamID, environmentID: environmentID) else {
            return pages.notFound(context, what: "team", back: "/teams")
        }
        let managed = try await changes.teamIsManaged(team, environmentID: environmentID)
        // One read for all members, in email order.
        let members = try await store.people(PeopleQuery(teamID: team.id, limit: max(1, team.members.count)), environmentID: environmentID)
            .map { Member(id: $0.user.id, email: ConsoleText($0.user.email), role: $0.user.role.rawValue) }
        let view = TeamView(
            chrome: pages.chrome(team.name, context, .teams), teamID: team.id, name: team.name,
            realm: ConsoleText(prefixes.outward(team.realmPath, environmentID: environmentID)),
            canChange: context.visit.isAdmin, scimManaged: managed.scim, membersManaged: managed.members,
            members: members
        )
        return pages.renderer.page("team", view)
    }

    @Sendable func rename(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let teamID = try teamID(context)
        return try await pages.change(context, back: "/teams/\(teamID)") {
            let name = try AdminRequests.TeamName(name: context.visit.form["name"] ?? "").validated()
            _ = try await changes.renameTeam(id: teamID, to: name, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func delete(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let teamID = try teamID(context)
        return try await pages.change(context, back: "/teams") {
            try await changes.deleteTeam(id: teamID, by: context.visit.identity.directoryCaller)
        }
    }

    /// Adds the person with the typed email: admins know people by email, not by id.
    @Sendable func addMember(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let teamID = try teamID(context)
        return try await pages.change(context, back: "/teams/\(teamID)") {
            try context.visit.identity.require(.administer)
            let email = EmailAddress(context.visit.form["email"] ?? "")?.value ?? ""
            guard let person = try await store.person(email: email, environmentID: context.visit.identity.environmentID) else {
                throw DirectoryError.unknownUser
            }
            _ = try await changes.changeMembership(
                userID: person.id, teamID: teamID, member: true, by: context.visit.identity.directoryCaller)
        }
    }

    @Sendable func removeMember(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        let teamID = try teamID(context)
        return try await pages.change(context, back: "/teams/\(teamID)") {
            let userID = try AdminRequests.id(context.parameters.get("user_id") ?? "", unknown: .unknownUser)
            _ = try await changes.changeMembership(
                userID: userID, teamID: teamID, member: false, by: context.visit.identity.directoryCaller)
        }
    }

    private func teamID(_ context: ConsoleRequestContext) throws -> String {
        try AdminRequests.id(context.parameters.get("team_id") ?? "", unknown: .unknownTeam)
    }

    struct Summary {
        let id: String
        let name: String
        let members: Int
    }

    struct Member {
        let id: String
        let email: ConsoleText
        let role: String
    }

    struct TeamsView {
        let chrome: ConsoleChrome
        let canChange: Bool
        let teams: [Summary]
    }

    struct TeamView {
        let chrome: ConsoleChrome
        let teamID: String
        let name: String
        let realm: ConsoleText
        let canChange: Bool
        let scimManaged: Bool
        let membersManaged: Bool
        let members: [Member]
    }
}
