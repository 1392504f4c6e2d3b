import Hummingbird

/// `GET /me`: the caller's user, role, teams and effective realms.
struct MeController: Sendable {
    let directory: any DirectoryStore
    let policy: RealmPolicy

    func addRoutes(to group: RouterGroup<IdentifiedRequestContext>) {
        group.get("me", use: show)
    }

    @Sendable func show(_ request: Request, context: IdentifiedRequestContext) async throws -> Me {
        let user = try context.identity.requireUser()
        guard let facts = try await directory.accessFacts(userID: user.id, environmentID: user.environmentID) else {
            throw DirectoryError.unknownUser
        }
        let teams = try await directory.teams(environmentID: user.environmentID).filter { facts.teams.contains($0.id) }
        return Me(user: user, role: user.role, teams: teams.map { Me.Team(id: $0.id, name: $0.name) }, realms: policy.realms(for: facts))
    }

    struct Me: ResponseEncodable {
        struct Team: Encodable {
            var id: String
            var name: String
        }

        var user: UserRecord
        var role: Role
        var teams: [Team]
        var realms: [String: RealmAccess]
    }
}
