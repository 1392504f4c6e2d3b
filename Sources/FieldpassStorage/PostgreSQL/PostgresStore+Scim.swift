public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore: ScimStore {
    public func scimUsers(
        environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimUserRecord> {
        // Without a filter, '' = '' keeps every row: one query text either way.
        let (column, value) = filter.map(ScimColumns.userCondition) ?? ("''", "")
        return try await read { connection in
            let total =
                try await connection.value(
                    """
                    SELECT COUNT(*) \(unescaped: ScimColumns.listedUsers)\(environmentID) AND s.removed_at IS NULL AND \(unescaped: column) = \(value)
                    """,
                    as: Int.self
                ) ?? 0
            let rows = try await connection.rows(
                """
                SELECT \(unescaped: ScimColumns.userColumns)
                \(unescaped: ScimColumns.listedUsers)\(environmentID) AND s.removed_at IS NULL AND \(unescaped: column) = \(value)
                ORDER BY u.created_at, u.id COLLATE "C" LIMIT \(limit) OFFSET \(offset)
                """
            )
            return ScimPage(total: total, items: try rows.map(Self.scimUserRecord))
        }
    }

    public func scimUser(id: String, environmentID: String) async throws -> ScimUserRecord? {
        try await read { connection in try await Self.fetchScimUser(connection, id: id, environmentID: environmentID) }
    }

    public func provisionScimUser(
        email: String, profile: ScimProfile, active: Bool, environmentID: String, actor: String, now: Date
    ) async throws -> ScimUserRecord {
        let record = try await write { connection in
            // Found locked, or created: of two requests for one new person, the second waits
            // here for the first to commit, and then finds them listed.
            let found = try await Self.findOrCreateUser(
                connection, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: actor
            )
            // A person SCIM lists (all but those it removed) is a conflict; a removed one comes back.
            var listed = false
            if !found.created {
                listed =
                    try await connection.value(
                        "SELECT s.removed_at IS NULL FROM users u LEFT JOIN scim_users s ON s.user_id = u.id WHERE u.id = \(found.id)",
                        as: Bool.self
                    ) == true
            }
            guard let user = try await Self.fetchUser(connection, id: found.id, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            let plan = try ScimUserPlans.provision(
                user, created: found.created, listed: listed, profile: profile, active: active,
                liveDevices: try await Self.liveDeviceIDs(connection, userID: user.id), actor: actor
            )
            try await Self.apply(plan, connection, environmentID: environmentID, now: now)
            return try await Self.requireScimUser(connection, id: user.id, environmentID: environmentID)
        }
        publish(.realms)
        await revocationsCaughtUp()
        return record
    }

    public func updateScimUser(
        id: String, environmentID: String, actor: String, now: Date,
        change: @escaping @Sendable (ScimUserRecord) throws -> ScimUserResource
    ) async throws -> ScimUserRecord {
        let record = try await write { connection in
            // Locked first: a concurrent change of this person waits, then reads what this one wrote.
            let old = try await Self.lockScimUser(connection, id: id, environmentID: environmentID)
            let new = try change(old)
            let holder = try await connection.value(PostgresQuery(UserStatements.idByEmail, environmentID, new.userName), as: String.self)
            let plan = try ScimUserPlans.update(
                old, email: new.userName, holderOfEmail: holder, profile: new.profile, active: new.active,
                liveDevices: try await Self.liveDeviceIDs(connection, userID: id), actor: actor
            )
            try await Self.apply(plan, connection, environmentID: environmentID, now: now)
            return try await Self.requireScimUser(connection, id: id, environmentID: environmentID)
        }
        await revocationsCaughtUp()
        return record
    }

    public func removeScimUser(id: String, environmentID: String, actor: String, now: Date) async throws {
        try await write { connection in
            let old = try await Self.lockScimUser(connection, id: id, environmentID: environmentID)
            let plan = try ScimUserPlans.remove(old, liveDevices: try await Self.liveDeviceIDs(connection, userID: id), actor: actor)
            try await Self.apply(plan, connection, environmentID: environmentID, now: now)
        }
        await revocationsCaughtUp()
    }

    /// The listed person, their row locked until the transaction ends.
    private static func lockScimUser(_ connection: PostgresConnection, id: String, environmentID: String) async throws -> ScimUserRecord {
        guard try await fetchUser(connection, id: id, environmentID: environmentID, forUpdate: true) != nil else {
            throw DirectoryError.unknownUser
        }
        return try await requireScimUser(connection, id: id, environmentID: environmentID)
    }

    private static func requireScimUser(_ connection: PostgresConnection, id: String, environmentID: String) async throws -> ScimUserRecord
    {
        guard let record = try await fetchScimUser(connection, id: id, environmentID: environmentID) else {
            throw DirectoryError.unknownUser
        }
        return record
    }

    public func isScimManaged(userID: String?, teamID: String?, environmentID: String) async throws -> Bool {
        try await read { connection in
            if let userID, try await Self.isProvisioned(connection, userID: userID, environmentID: environmentID) { return true }
            guard let teamID else { return false }
            return try await Self.isScimGroupTeam(connection, teamID: teamID, environmentID: environmentID)
        }
    }

    /// Whether SCIM provisioned the person (``ScimStatements/provisioned``).
    static func isProvisioned(_ connection: PostgresConnection, userID: String, environmentID: String) async throws -> Bool {
        try await connection.value(PostgresQuery(ScimStatements.provisioned, userID, environmentID), as: Bool.self) ?? false
    }

    static func saveProfile(_ connection: PostgresConnection, userID: String, profile: ScimProfile, now: Date) async throws {
        try await connection.execute(
            PostgresQuery(
                ScimStatements.saveProfile, userID, profile.externalID, profile.displayName, try ScimColumns.name(profile),
                try ScimColumns.emails(profile), now.timeIntervalSince1970))
    }

    static func fetchScimUser(_ connection: PostgresConnection, id: String, environmentID: String) async throws -> ScimUserRecord? {
        try await connection.first(PostgresQuery(ScimStatements.user, environmentID, id)).map(scimUserRecord)
    }

    static func scimUserRecord(_ row: PostgresRandomAccessRow) throws -> ScimUserRecord {
        ScimUserRecord(
            user: try userRecord(row),
            profile: try ScimColumns.profile(
                externalID: try row.get("external_id"), displayName: try row.get("display_name"),
                name: try row.get("name"), emails: try row.get("emails")
            ),
            updatedAt: try row.get("updated_at", as: Double?.self).map(Date.init(timeIntervalSince1970:))
        )
    }
}
