/// The statements on teams and their members both stores share (``SharedStatement``).
enum TeamStatements {
    /// Creates a team unless its name is taken (the unique name index): answers its id when created.
    static let create = SharedStatement { value in
        "INSERT INTO teams (id, environment_id, name, created_at) VALUES (\(value(1)), \(value(2)), \(value(3)), \(value(4))) ON CONFLICT DO NOTHING RETURNING id"
    }

    /// New name, team.
    static let rename = SharedStatement { value in "UPDATE teams SET name = \(value(1)) WHERE id = \(value(2))" }

    static let delete = SharedStatement { value in "DELETE FROM teams WHERE id = \(value(1))" }

    /// Team, person, time.
    static let addMember = SharedStatement { value in
        "INSERT INTO team_members (team_id, user_id, added_at) VALUES (\(value(1)), \(value(2)), \(value(3)))"
    }

    /// Team, person.
    static let removeMember = SharedStatement { value in
        "DELETE FROM team_members WHERE team_id = \(value(1)) AND user_id = \(value(2))"
    }

    /// The team, if it is of the environment: id, environment.
    static let team = SharedStatement { value in
        "SELECT id, name, created_at FROM teams WHERE id = \(value(1)) AND environment_id = \(value(2))"
    }

    /// The team's members, in id order, as one list (``SQLDialect/list(_:)``): team.
    static let members = SharedStatement(dialects: { sql in
        "SELECT \(sql.list("SELECT user_id AS item FROM team_members WHERE team_id = \(sql.value(1)) ORDER BY \(sql.bytewise("user_id"))"))"
    })

    /// The id of the team of the environment with the name in any case, as each store's unique
    /// index compares names (SQLite's column is `NOCASE`): environment, name.
    static let idNamed = SharedStatement(dialects: { sql in
        let name = sql.isPostgres ? "lower(name) = lower(\(sql.value(2)))" : "name = \(sql.value(2))"
        return "SELECT id FROM teams WHERE environment_id = \(sql.value(1)) AND \(name)"
    })

    /// An environment's teams with their sizes, and whether a person is a member: viewer,
    /// environment. Counted from the members' index, never read out.
    static let summaries = SharedStatement { value in
        """
        SELECT t.id, t.name,
               (SELECT COUNT(*) FROM team_members m WHERE m.team_id = t.id) AS member_count,
               EXISTS (SELECT 1 FROM team_members m WHERE m.team_id = t.id AND m.user_id = \(value(1))) AS includes_viewer
        FROM teams t WHERE t.environment_id = \(value(2))
        """
    }

    /// The environment's teams, each with its members (a row each; `user_id` is `NULL` for a
    /// team without): by name in any case, then by id, in byte order: environment. One
    /// statement, so the teams and their members come from one snapshot.
    static let withMembers = SharedStatement(dialects: { sql in
        """
        SELECT t.id, t.name, t.created_at, m.user_id
        FROM teams t LEFT JOIN team_members m ON m.team_id = t.id
        WHERE t.environment_id = \(sql.value(1))
        ORDER BY \(sql.bytewise("lower(t.name)")), \(sql.bytewise("t.id")), \(sql.bytewise("m.user_id"))
        """
    })
}
