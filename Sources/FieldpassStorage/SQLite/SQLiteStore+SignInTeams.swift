import FieldpassDomain
import GRDB

/// The teams of a sign-in's claim (``SignInRules/Teams``): read, and written as decided.
extension SQLiteStore {
    /// The person's teams, and the teams named `names` (in any case, as the unique index
    /// compares them).
    static func signInTeams(_ db: Database, userID: String, environmentID: String, names: [String]) throws -> SignInRules.Teams {
        let current = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    SELECT t.id, t.name FROM team_members m JOIN teams t ON t.id = m.team_id
                    WHERE m.user_id = ? ORDER BY t.id
                    """),
            arguments: [userID]
        ).map { SignInRules.Team(id: $0["id"], name: $0["name"]) }
        var named: [String: SignInRules.Team] = [:]
        for name in names {
            if let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT id, name FROM teams WHERE environment_id = ? AND name = ?"),
                arguments: [environmentID, name]
            ) {
                named[name] = SignInRules.Team(id: row["id"], name: row["name"])
            }
        }
        return SignInRules.Teams(current: current, named: named)
    }

    /// Creates the decision's teams, then adds and removes the person's memberships.
    static func applyTeams(of decision: SignInRules.Decision, _ db: Database, userID: String, environmentID: String, now: Double) throws {
        for team in decision.createTeams {
            try db.execute(
                cached: "INSERT INTO teams (id, environment_id, name, created_at) VALUES (?, ?, ?, ?)",
                arguments: [team.id, environmentID, team.name, now]
            )
        }
        for teamID in decision.join {
            try db.execute(cached: TeamStatements.addMember.sqlite, arguments: [teamID, userID, now])
        }
        for teamID in decision.leave {
            try db.execute(cached: TeamStatements.removeMember.sqlite, arguments: [teamID, userID])
        }
    }
}
