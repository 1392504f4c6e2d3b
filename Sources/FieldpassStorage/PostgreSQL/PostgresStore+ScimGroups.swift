public import FieldpassDomain
public import Foundation
import PostgresNIO

/// SCIM groups on PostgreSQL: teams or role groups, each change planned by ``ScimGroupPlans``.
extension PostgresStore {
    public func scimGroups(
        environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimGroupRecord> {
        let (column, value) = filter.map(ScimColumns.groupCondition) ?? ("''", "")
        return try await read { connection in
            let total =
                try await connection.value(
                    "SELECT COUNT(*) \(unescaped: ScimColumns.groups)\(environmentID) AND \(unescaped: column) = \(value)", as: Int.self
                ) ?? 0
            var groups: [ScimGroupRecord] = []
            for row in try await connection.rows(
                """
                SELECT \(unescaped: ScimColumns.groupColumns) \(unescaped: ScimColumns.groups)\(environmentID) AND \(unescaped: column) = \(value)
                ORDER BY g.created_at, g.id COLLATE "C" LIMIT \(limit) OFFSET \(offset)
                """
            ) {
                groups.append(try await Self.scimGroupRecord(connection, row))
            }
            return ScimPage(total: total, items: groups)
        }
    }

    public func scimGroup(id: String, environmentID: String) async throws -> ScimGroupRecord? {
        try await read { connection in try await Self.fetchScimGroup(connection, id: id, environmentID: environmentID) }
    }

    public func createScimGroup(
        kind: ScimGroupKind, displayName: String, externalID: String?, members: [String], roles: RoleClaimMapping?,
        environmentID: String, actor: String, now: Date
    ) async throws -> ScimGroupRecord {
        let group = try await write { connection in
            let nameTaken =
                try await connection.value(PostgresQuery(ScimStatements.groupNameTaken, environmentID, displayName), as: Bool.self) ?? false
            var team: TeamRecord?
            if kind == .team, let teamID = try await Self.teamID(connection, named: displayName, environmentID: environmentID) {
                team = try await Self.fetchTeam(connection, id: teamID, environmentID: environmentID, forUpdate: true)
            }
            let id = UUID().uuidString.lowercased()
            let plan = try ScimGroupPlans.create(
                id: id, kind: kind, displayName: displayName, externalID: externalID, nameTaken: nameTaken, team: team, actor: actor)
            try await Self.apply(plan, connection, environmentID: environmentID, now: now)
            let group = try await Self.requireScimGroup(connection, id: team?.id ?? id, environmentID: environmentID)
            let resource = ScimGroupResource(displayName: group.displayName, externalID: externalID, members: members)
            return try await Self.save(group, as: resource, roles: roles, environmentID: environmentID, actor: actor, now: now, connection)
        }
        await revocationsCaughtUp()
        return group
    }

    public func updateScimGroup(
        id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date,
        change: @escaping @Sendable (ScimGroupRecord) throws -> ScimGroupResource
    ) async throws -> ScimGroupRecord {
        let group = try await write { connection in
            let group = try await Self.lockScimGroup(connection, id: id, environmentID: environmentID)
            let resource = try change(group)
            return try await Self.save(group, as: resource, roles: roles, environmentID: environmentID, actor: actor, now: now, connection)
        }
        await revocationsCaughtUp()
        return group
    }

    public func deleteScimGroup(id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date) async throws {
        try await write { connection in
            let group = try await Self.lockScimGroup(connection, id: id, environmentID: environmentID)
            let facts = try await Self.facts(of: group, as: ScimGroupPlans.emptied(group), environmentID: environmentID, connection)
            let plan = try ScimGroupPlans.deleteRoleGroup(group, facts: facts, roles: roles, actor: actor)
            try await Self.apply(plan, connection, environmentID: environmentID, now: now)
        }
        await revocationsCaughtUp()
    }

    /// The group, its row locked until the transaction ends: two changes of one group run one
    /// after the other, each seeing the members the other left.
    private static func lockScimGroup(_ connection: PostgresConnection, id: String, environmentID: String) async throws -> ScimGroupRecord {
        guard
            try await connection.value(
                "SELECT id FROM scim_groups WHERE id = \(id) AND environment_id = \(environmentID) FOR UPDATE", as: String.self
            ) != nil
        else { throw DirectoryError.unknownTeam }
        return try await requireScimGroup(connection, id: id, environmentID: environmentID)
    }

    /// Makes the stored `group` what `resource` says (``ScimGroupPlans/save(_:as:facts:roles:actor:)``).
    private static func save(
        _ group: ScimGroupRecord, as resource: ScimGroupResource, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date,
        _ connection: PostgresConnection
    ) async throws -> ScimGroupRecord {
        let facts = try await facts(of: group, as: resource, environmentID: environmentID, connection)
        let plan = try ScimGroupPlans.save(group, as: resource, facts: facts, roles: roles, actor: actor)
        try await apply(plan, connection, environmentID: environmentID, now: now)
        return try await requireScimGroup(connection, id: group.id, environmentID: environmentID)
    }

    /// What the rule of a change of `group` to `resource` reads, locked: the people first, in
    /// id order, then the team, the order every change of people and teams takes them in, so
    /// that no two transactions deadlock. A role group's rename changes every member's role at
    /// once, so every member is locked with them, in one statement.
    private static func facts(
        of group: ScimGroupRecord, as resource: ScimGroupResource, environmentID: String, _ connection: PostgresConnection
    ) async throws -> ScimGroupFacts {
        var people: [String: UserRecord] = [:]
        var keys: [String: [String]] = [:]
        let read = ScimGroupPlans.peopleToRead(group, as: resource)
        if ScimGroupPlans.recomputesRoles(group, as: resource) {
            try await connection.execute(
                """
                SELECT id FROM users
                WHERE id IN (SELECT user_id FROM scim_group_members WHERE group_id = \(group.id)) OR id = ANY(\(read))
                ORDER BY id COLLATE "C" FOR UPDATE
                """
            )
        }
        if !read.isEmpty {
            for row in try await connection.rows(
                """
                SELECT \(unescaped: UserStatements.columns) FROM users WHERE id = ANY(\(read)) AND environment_id = \(environmentID)
                ORDER BY id COLLATE "C" FOR UPDATE
                """
            ) {
                let person = try userRecord(row)
                people[person.id] = person
            }
        }
        if group.teamID == nil, !people.isEmpty {
            keys = try await roleGroupKeys(connection, userIDs: Array(people.keys), except: group.id, environmentID: environmentID)
        }
        var team: TeamRecord?
        var holder: String?
        if let teamID = group.teamID {
            team = try await fetchTeam(connection, id: teamID, environmentID: environmentID, forUpdate: true)
            if resource.displayName != group.displayName {
                holder = try await Self.teamID(connection, named: resource.displayName, environmentID: environmentID)
            }
        }
        let listed = try await listedPeople(connection, among: ScimGroupPlans.joining(group, as: resource), environmentID: environmentID)
        return ScimGroupFacts(team: team, holderOfName: holder, people: people, otherRoleGroupKeys: keys, listed: listed)
    }

    /// Who of `ids` SCIM lists in the environment: one statement, however many they are.
    private static func listedPeople(
        _ connection: PostgresConnection, among ids: [String], environmentID: String
    ) async throws -> Set<String> {
        guard !ids.isEmpty else { return [] }
        return Set(
            try await connection.values(
                "SELECT u.id \(unescaped: ScimColumns.listedUsers)\(environmentID) AND s.removed_at IS NULL AND u.id = ANY(\(ids))",
                as: String.self
            ))
    }

    private static func requireScimGroup(
        _ connection: PostgresConnection, id: String, environmentID: String
    ) async throws -> ScimGroupRecord {
        guard let group = try await fetchScimGroup(connection, id: id, environmentID: environmentID) else {
            throw DirectoryError.unknownTeam
        }
        return group
    }

    /// The names and external ids of each person's role groups but `groupID`, by person.
    static func roleGroupKeys(
        _ connection: PostgresConnection, userIDs: [String], except groupID: String, environmentID: String
    ) async throws -> [String: [String]] {
        var keys: [String: [String]] = [:]
        for row in try await connection.rows(
            """
            SELECT m.user_id, g.display_name, g.external_id FROM scim_group_members m JOIN scim_groups g ON g.id = m.group_id
            WHERE m.user_id = ANY(\(userIDs)) AND g.environment_id = \(environmentID) AND g.id <> \(groupID)
            """
        ) {
            keys[try row.get("user_id"), default: []] += [
                try row.get("display_name", as: String?.self), try row.get("external_id", as: String?.self),
            ].compactMap { $0 }
        }
        return keys
    }

    static func fetchScimGroup(_ connection: PostgresConnection, id: String, environmentID: String) async throws -> ScimGroupRecord? {
        guard
            let row = try await connection.first(PostgresQuery(ScimStatements.group, environmentID, id))
        else { return nil }
        return try await scimGroupRecord(connection, row)
    }

    static func scimGroupRecord(_ connection: PostgresConnection, _ row: PostgresRandomAccessRow) async throws -> ScimGroupRecord {
        let id: String = try row.get("id")
        return ScimGroupRecord(
            id: id, teamID: try row.get("team_id"), displayName: try row.get("display_name"), externalID: try row.get("external_id"),
            members: try await connection.values(PostgresQuery(ScimColumns.members, id)),
            createdAt: Date(timeIntervalSince1970: try row.get("created_at")),
            updatedAt: Date(timeIntervalSince1970: try row.get("updated_at"))
        )
    }
}
