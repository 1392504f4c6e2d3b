import FieldpassDomain
import PostgresNIO

/// A team a sign-in was to create was created by another transaction after the sign-in looked
/// for it (an admin's, which takes no name lock): ``PostgresStore/write(_:)`` runs the sign-in
/// again, and it then finds the team.
struct TeamNameTakenMeanwhile: Error {}

/// The teams of a sign-in's claim (``SignInRules/Teams``): read, and written as decided.
extension PostgresStore {
    /// The person's teams, and the teams named `names` (in any case, as the unique index
    /// `teams_name` compares them). Callers hold the person's lock.
    static func signInTeams(
        _ connection: PostgresConnection, userID: String, environmentID: String, names: [String]
    ) async throws -> SignInRules.Teams {
        if !names.isEmpty {
            // Sign-ins that would create the same team take turns, so the second finds the
            // first's team. The locks are taken in one order, so they never deadlock.
            try await connection.execute(
                """
                SELECT pg_advisory_xact_lock(key) FROM (
                    SELECT DISTINCT hashtextextended('team' || E'\\n' || \(environmentID) || E'\\n' || lower(name), 0) AS key
                    FROM unnest(\(names)::text[]) AS name ORDER BY key
                ) AS keys
                """
            )
        }
        let current = try await connection.rows(
            """
            SELECT t.id, t.name FROM team_members m JOIN teams t ON t.id = m.team_id
            WHERE m.user_id = \(userID) ORDER BY t.id COLLATE "C"
            """
        ).map { row in try SignInRules.Team(id: row.get("id"), name: row.get("name")) }
        var named: [String: SignInRules.Team] = [:]
        if !names.isEmpty {
            // Shared locks keep the teams from being deleted before the memberships are written.
            for row in try await connection.rows(
                """
                SELECT requested, t.id, t.name FROM unnest(\(names)::text[]) AS requested
                JOIN teams t ON t.environment_id = \(environmentID) AND lower(t.name) = lower(requested)
                FOR KEY SHARE OF t
                """
            ) {
                named[try row.get("requested")] = try SignInRules.Team(id: row.get("id"), name: row.get("name"))
            }
        }
        return SignInRules.Teams(current: current, named: named)
    }

    /// Creates the decision's teams, then adds and removes the person's memberships.
    static func applyTeams(
        of decision: SignInRules.Decision, _ connection: PostgresConnection, userID: String, environmentID: String, now: Double
    ) async throws {
        for team in decision.createTeams {
            guard
                try await connection.value(
                    """
                    INSERT INTO teams (id, environment_id, name, created_at) VALUES (\(team.id), \(environmentID), \(team.name), \(now))
                    ON CONFLICT (environment_id, lower(name)) DO NOTHING
                    RETURNING id
                    """,
                    as: String.self
                ) != nil
            else { throw TeamNameTakenMeanwhile() }
        }
        for teamID in decision.join {
            try await connection.execute(PostgresQuery(TeamStatements.addMember, teamID, userID, now))
        }
        for teamID in decision.leave {
            try await connection.execute(PostgresQuery(TeamStatements.removeMember, teamID, userID))
        }
    }
}
