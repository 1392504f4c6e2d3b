public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    public func teams(environmentID: String) async throws -> [TeamRecord] {
        try await read { connection in
            // One statement, so the teams and their members come from one snapshot. Names sort
            // case-insensitively in byte order, as SQLite's NOCASE does.
            let rows = try await connection.rows(
                """
                SELECT t.id, t.name, t.created_at, m.user_id
                FROM teams t LEFT JOIN team_members m ON m.team_id = t.id
                WHERE t.environment_id = \(environmentID)
                ORDER BY lower(t.name) COLLATE "C", t.id COLLATE "C", m.user_id COLLATE "C"
                """
            )
            var teams: [TeamRecord] = []
            for row in rows {
                let id: String = try row.get("id")
                if teams.last?.id != id {
                    teams.append(
                        TeamRecord(
                            id: id, name: try row.get("name"), members: [],
                            createdAt: Date(timeIntervalSince1970: try row.get("created_at"))
                        )
                    )
                }
                if let member = try row.get("user_id", as: String?.self) {
                    teams[teams.count - 1].members.append(member)
                }
            }
            return teams
        }
    }

    public func team(id: String, environmentID: String) async throws -> TeamRecord? {
        try await read { connection in try await Self.fetchTeam(connection, id: id, environmentID: environmentID) }
    }

    public func createTeam(name: String, by caller: DirectoryCaller, now: Date) async throws -> TeamRecord {
        try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            let (environmentID, actor) = (caller.environmentID, caller.actor)
            let id = UUID().uuidString.lowercased()
            let holder = try await Self.teamID(connection, named: name, environmentID: environmentID)
            let plan = try TeamRules.create(id: id, name: name, holderOfName: holder, actor: actor)
            try await Self.apply(plan, connection, environmentID: environmentID, now: now)
            return try await Self.requireTeam(connection, id: id, environmentID: environmentID)
        }
    }

    public func renameTeam(id: String, to name: String, by caller: DirectoryCaller, now: Date) async throws -> TeamRecord {
        let team = try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            let scimManaged = try await Self.isScimGroupTeam(connection, teamID: id, environmentID: caller.environmentID)
            try DirectoryAuthority.checkTeamChange(by: caller, scimManaged: scimManaged)
            return try await Self.renameTeam(
                connection, id: id, to: name, environmentID: caller.environmentID, actor: caller.actor, now: now)
        }
        await revocationsCaughtUp()
        return team
    }

    static func renameTeam(
        _ connection: PostgresConnection, id: String, to name: String, environmentID: String, actor: String, now: Date
    ) async throws -> TeamRecord {
        let team = try await fetchTeam(connection, id: id, environmentID: environmentID, forUpdate: true)
        let holder = try await teamID(connection, named: name, environmentID: environmentID)
        let plan = try TeamRules.rename(team, to: name, holderOfName: holder, actor: actor)
        try await apply(plan, connection, environmentID: environmentID, now: now)
        return try await requireTeam(connection, id: id, environmentID: environmentID)
    }

    public func deleteTeam(id: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            let environmentID = caller.environmentID
            // Locked, so that the members the audit entry lists are the ones deleted with it.
            let team = try await Self.fetchTeam(connection, id: id, environmentID: environmentID, forUpdate: true)
            let scimManaged = try await Self.isScimGroupTeam(connection, teamID: id, environmentID: environmentID)
            try DirectoryAuthority.checkTeamChange(by: caller, scimManaged: scimManaged)
            try await Self.apply(try TeamRules.delete(team, actor: caller.actor), connection, environmentID: environmentID, now: now)
        }
        await revocationsCaughtUp()
    }

    public func changeMembership(
        userID: String, teamID: String, member: Bool, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws -> TeamRecord {
        let team = try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            return try await Self.changeMembership(
                connection, userID: userID, teamID: teamID, environmentID: caller.environmentID, actor: caller.actor, now: now,
                member: member
            ) { team in
                let scimManaged = try await Self.isScimGroupTeam(connection, teamID: team.id, environmentID: caller.environmentID)
                try DirectoryAuthority.checkMembershipChange(by: caller, of: team, scimManaged: scimManaged, managed: managed)
            }
        }
        await revocationsCaughtUp()
        return team
    }

    /// `check` sees the team, locked, when it and the person are known.
    static func changeMembership(
        _ connection: PostgresConnection, userID: String, teamID: String, environmentID: String, actor: String, now: Date, member: Bool,
        check: (TeamRecord) async throws -> Void = { _ in }
    ) async throws -> TeamRecord {
        // The person first, then the team (always in this order, so that no two transactions
        // deadlock on them): a membership change waits for the person's other changes and
        // for the team's rename or deletion.
        let user = try await fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true)
        let team = try await fetchTeam(connection, id: teamID, environmentID: environmentID, forUpdate: true)
        if let team, user != nil { try await check(team) }
        let plan = try TeamRules.changeMembership(of: userID, userKnown: user != nil, in: team, member: member, actor: actor)
        try await apply(plan, connection, environmentID: environmentID, now: now)
        return try await requireTeam(connection, id: teamID, environmentID: environmentID)
    }

    /// Whether the team is a SCIM group's, whose name, existence and members are the IdP's.
    static func isScimGroupTeam(_ connection: PostgresConnection, teamID: String, environmentID: String) async throws -> Bool {
        try await connection.value(PostgresQuery(ScimStatements.teamIsGroup, teamID, environmentID), as: Bool.self) ?? false
    }

    /// The team a change just wrote, which its transaction still holds.
    private static func requireTeam(_ connection: PostgresConnection, id: String, environmentID: String) async throws -> TeamRecord {
        guard let team = try await fetchTeam(connection, id: id, environmentID: environmentID) else {
            throw DirectoryError.unknownTeam
        }
        return team
    }

    /// The team, if it is of `environmentID`. With `forUpdate`, its row stays locked until the
    /// transaction ends, so its name and members cannot change meanwhile.
    static func fetchTeam(
        _ connection: PostgresConnection, id: String, environmentID: String, forUpdate: Bool = false
    ) async throws -> TeamRecord? {
        guard
            let row = try await connection.first(
                """
                SELECT id, name, created_at FROM teams
                WHERE id = \(id) AND environment_id = \(environmentID)\(unescaped: lockClause(forUpdate))
                """
            )
        else { return nil }
        let members = try await connection.values(
            "SELECT user_id FROM team_members WHERE team_id = \(id) ORDER BY user_id COLLATE \"C\"", as: String.self
        )
        return try TeamRecord(
            id: row.get("id"), name: row.get("name"), members: members,
            createdAt: Date(timeIntervalSince1970: row.get("created_at"))
        )
    }

    /// The team named `name` in any case, as the unique index `teams_name` compares names.
    static func teamID(_ connection: PostgresConnection, named name: String, environmentID: String) async throws -> String? {
        try await connection.value(
            "SELECT id FROM teams WHERE environment_id = \(environmentID) AND lower(name) = lower(\(name))", as: String.self
        )
    }
}
