/// The statements of a sign-in (``SignInRules``) both stores share (``SharedStatement``). Where
/// PostgreSQL makes concurrent sign-ins take turns, SQLite's single writer already runs one
/// transaction at a time: its text of those statements only reads its values back.
enum SignInStatements {
    /// Waits for the sign-ins binding the same IdP account to commit: the account's key
    /// (environment, issuer and subject, one a line).
    static let takeTurnsOnAccount = SharedStatement(dialects: { sql in
        sql.isPostgres ? "SELECT pg_advisory_xact_lock(hashtextextended($1, 0))" : "SELECT ?1"
    })

    /// Waits for the sign-ins that would create a team of these names to commit, in one order
    /// of the names' locks, so that they never deadlock: environment, names.
    static let takeTurnsOnTeamNames = SharedStatement(dialects: { sql in
        guard sql.isPostgres else { return "SELECT ?1, ?2" }
        return """
            SELECT pg_advisory_xact_lock(key) FROM (
                SELECT DISTINCT hashtextextended('team' || E'\\n' || $1 || E'\\n' || lower(name), 0) AS key
                FROM unnest($2::text[]) AS name ORDER BY key
            ) AS keys
            """
    })

    /// The person's teams, ids and names, by id: person.
    static let teamsOf = SharedStatement(dialects: { sql in
        """
        SELECT t.id, t.name FROM team_members m JOIN teams t ON t.id = m.team_id
        WHERE m.user_id = \(sql.value(1)) ORDER BY \(sql.bytewise("t.id"))
        """
    })

    /// The environment's teams of these names (in any case, as the unique index of team names
    /// compares them), each with the name asked for: environment, names. PostgreSQL's shared
    /// locks keep the teams from being deleted before the sign-in's memberships are written.
    static let teamsNamed = SharedStatement(dialects: { sql in
        guard sql.isPostgres else {
            return """
                SELECT requested.value AS requested, t.id, t.name FROM json_each(?2) AS requested
                JOIN teams t ON t.environment_id = ?1 AND t.name = requested.value
                """
        }
        return """
            SELECT requested, t.id, t.name FROM unnest($2::text[]) AS requested
            JOIN teams t ON t.environment_id = $1 AND lower(t.name) = lower(requested)
            FOR KEY SHARE OF t
            """
    })

    /// The person with their teams (ids and names, by id) and grants (paths and levels), in one
    /// statement: person, environment.
    static let accessFacts = SharedStatement(dialects: { sql in
        """
        SELECT \(UserStatements.columns),
               \(sql.list("SELECT m.team_id AS item FROM team_members m WHERE m.user_id = u.id ORDER BY \(sql.bytewise("m.team_id"))")) AS team_ids,
               \(sql.list("""
                   SELECT t.name AS item FROM team_members m JOIN teams t ON t.id = m.team_id
                   WHERE m.user_id = u.id ORDER BY \(sql.bytewise("m.team_id"))
                   """)) AS team_names,
               \(sql.list("SELECT g.realm_path AS item FROM realm_grants g WHERE g.user_id = u.id ORDER BY g.realm_path")) AS grant_paths,
               \(sql.list("SELECT g.access AS item FROM realm_grants g WHERE g.user_id = u.id ORDER BY g.realm_path")) AS grant_access
        FROM users u WHERE id = \(sql.value(1)) AND environment_id = \(sql.value(2))
        """
    })
}
