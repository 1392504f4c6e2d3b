public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    public func users(environmentID: String) async throws -> [UserRecord] {
        try await read { connection in
            // Byte order (as SQLite sorts), whatever the database's collation.
            try await connection.rows(
                """
                SELECT id, environment_id, email, role, created_at, idp_issuer, idp_subject, disabled_at
                FROM users WHERE environment_id = \(environmentID) ORDER BY email COLLATE "C"
                """
            ).map(Self.userRecord)
        }
    }

    public func user(id: String, environmentID: String) async throws -> UserRecord? {
        try await read { connection in try await Self.fetchUser(connection, id: id, environmentID: environmentID) }
    }

    public func ensureUser(email: String, environmentID: String, actor: String, now: Date) async throws -> UserRecord {
        let user = try await write { connection in
            let id = try await Self.findOrCreateUser(
                connection, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: actor
            ).id
            guard let user = try await Self.fetchUser(connection, id: id, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return user
        }
        publish(.realms)
        return user
    }

    public func setRole(
        _ role: Role, userID: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws
        -> UserRecord
    {
        let user = try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            return try await Self.setRole(
                connection, role, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: now
            ) { try DirectoryAuthority.checkRoleChange(by: caller, managed: managed) }
        }
        await revocationsCaughtUp()
        return user
    }

    public func setRole(
        _ role: Role, email: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws
        -> UserRecord
    {
        let user = try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            try DirectoryAuthority.checkRoleChange(by: caller, managed: managed)
            let (environmentID, actor) = (caller.environmentID, caller.actor)
            // Found locked, or created: the role is set on the row this transaction holds.
            let id = try await Self.findOrCreateUser(
                connection, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: actor
            ).id
            return try await Self.setRole(connection, role, userID: id, environmentID: environmentID, actor: actor, now: now)
        }
        publish(.realms)
        await revocationsCaughtUp()
        return user
    }

    static func setRole(
        _ connection: PostgresConnection, _ role: Role, userID: String, environmentID: String, actor: String, now: Date,
        check: () throws -> Void = {}
    ) async throws -> UserRecord {
        // Locked, so that two changes of this person's role cannot both log the same "before".
        let user = try await fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true)
        if user != nil { try check() }
        try await apply(try DirectoryRules.setRole(role, of: user, actor: actor), connection, environmentID: environmentID, now: now)
        guard var user else { throw DirectoryError.unknownUser }
        user.role = role
        return user
    }

    /// From memory when it can answer (see ``LiveRevocations``), else from the store.
    public func accessFacts(userID: String, environmentID: String) async throws -> AccessFacts? {
        let lookup = revocations?.accessFacts(userID: userID, environmentID: environmentID, now: .now)
        if case .known(let facts) = lookup { return facts }
        let facts = try await read { connection in try await Self.fetchFacts(connection, userID: userID, environmentID: environmentID) }
        if case .unknown(let generation?) = lookup, let facts { revocations?.remember(facts, ifUnchangedSince: generation) }
        return facts
    }

    /// The id and role of the user with `email`, created with their personal realm when
    /// absent, and locked until the transaction ends. The realm enters the realm feed after
    /// commit (see ``PostgresFeed``); publish it then. One round trip for a newcomer, two for
    /// someone known. A creation is audited (by its first registration unless `actor` says
    /// otherwise).
    ///
    /// Race-safe: of two transactions creating the same email, the second waits on the unique
    /// key until the first commits, inserts nothing, and then finds and locks the committed
    /// row. Only the transaction that inserted the user creates the realm.
    static func findOrCreateUser(
        _ connection: PostgresConnection, email: String, environmentID: String, now: Double, actor: String = "device"
    ) async throws -> (id: String, role: String, created: Bool) {
        let person = DirectoryRules.newPerson(email: email, actor: actor)
        let creation: PostgresQuery = """
            created AS (
                INSERT INTO users (id, environment_id, email, role, created_at)
                VALUES (\(person.id), \(environmentID), \(person.email), \(person.role.rawValue), \(now))
                ON CONFLICT (environment_id, email) DO NOTHING
                RETURNING id, role
            ), realm AS (
                INSERT INTO realms (path, environment_id, user_id, created_at, writer_xid, written)
                SELECT \(person.realmPath), \(environmentID), id, \(now), \(unescaped: PostgresFeed.unplacedMark)
                FROM created
            )
            """
        // The audit of the creation is written by the same statement, for the created row only.
        let statement = try auditing(
            person.audit, environmentID: environmentID,
            now: Date(timeIntervalSince1970: now), following: (creation, eachRowOf: "created"), then: "SELECT id, role FROM created"
        )
        var row = try await connection.first(statement.query)
        let created = row != nil
        if !created {
            row = try await connection.first(
                "SELECT id, role FROM users WHERE environment_id = \(environmentID) AND email = \(email) FOR UPDATE"
            )
        } else if statement.storesEvents {
            LifecycleWrites.current?.wrote()
        }
        guard let row else { throw DirectoryError.unknownUser }
        return (try row.get("id"), try row.get("role"), created)
    }

    /// The user, if they are of `environmentID`. With `forUpdate`, their row stays locked until
    /// the transaction ends: take it before changing anything of the person's.
    static func fetchUser(
        _ connection: PostgresConnection, id: String, environmentID: String, forUpdate: Bool = false
    ) async throws -> UserRecord? {
        var query = PostgresQuery(UserStatements.user, id, environmentID)
        query.sql += lockClause(forUpdate)
        return try await connection.first(query).map(userRecord)
    }

    /// The person with their teams (ids and names) and grants, in one statement.
    static func fetchFacts(_ connection: PostgresConnection, userID: String, environmentID: String) async throws -> AccessFacts? {
        guard
            let row = try await connection.first(
                """
                SELECT id, environment_id, email, role, created_at, idp_issuer, idp_subject, disabled_at,
                       ARRAY(SELECT m.team_id FROM team_members m WHERE m.user_id = u.id ORDER BY m.team_id COLLATE "C") AS team_ids,
                       ARRAY(SELECT t.name FROM team_members m JOIN teams t ON t.id = m.team_id
                             WHERE m.user_id = u.id ORDER BY m.team_id COLLATE "C") AS team_names,
                       ARRAY(SELECT g.realm_path FROM realm_grants g WHERE g.user_id = u.id ORDER BY g.realm_path) AS grant_paths,
                       ARRAY(SELECT g.access FROM realm_grants g WHERE g.user_id = u.id ORDER BY g.realm_path) AS grant_access
                FROM users u WHERE id = \(userID) AND environment_id = \(environmentID)
                """
            )
        else { return nil }
        let teams: [String] = try row.get("team_ids")
        let names: [String] = try row.get("team_names")
        let paths: [String] = try row.get("grant_paths")
        let levels: [String] = try row.get("grant_access")
        var grants: [String: RealmAccess] = [:]
        for (path, level) in zip(paths, levels) {
            if let access = RealmAccess(rawValue: level) { grants[path] = access }
        }
        return AccessFacts(
            user: try userRecord(row), teams: teams, grants: grants,
            teamNames: Dictionary(zip(teams, names), uniquingKeysWith: { first, _ in first })
        )
    }

    /// A user from a row with the columns `id, environment_id, email, role, created_at,
    /// idp_issuer, idp_subject, disabled_at`.
    static func userRecord(_ row: PostgresRandomAccessRow) throws -> UserRecord {
        try UserRecord(
            id: row.get("id"), environmentID: row.get("environment_id"), email: row.get("email"),
            role: Role(stored: row.get("role")), createdAt: Date(timeIntervalSince1970: row.get("created_at")),
            idpIssuer: row.get("idp_issuer"), idpSubject: row.get("idp_subject"),
            disabled: row.get("disabled_at", as: Double?.self) != nil
        )
    }
}
