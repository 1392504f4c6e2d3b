public import FieldpassDomain
import Foundation
import PostgresNIO

/// A transaction on PostgreSQL (``StoreTransaction``), on one pooled connection. It takes
/// row locks only in ``LockedTable``'s order and refuses one out of it: a transaction that
/// could deadlock against another fails in the first test that runs it, not under load.
final class PostgresTransaction: StoreTransaction {
    let connection: PostgresConnection
    private var lastLocked: LockedTable?

    init(_ connection: PostgresConnection) {
        self.connection = connection
    }

    func rows(
        _ statement: SharedStatement, _ values: [(any StoredValue)?], locking: LockedTable?
    ) async throws -> [PostgresRandomAccessRow] {
        var sql = statement.postgres
        if let locking {
            try takeLocks(of: locking)
            sql += " FOR UPDATE"
        }
        return try await connection.rows(PostgresQuery(unsafeSQL: sql, binds: Self.binds(values)))
    }

    func execute(_ statement: SharedStatement, _ values: [(any StoredValue)?]) async throws {
        try await connection.execute(PostgresQuery(unsafeSQL: statement.postgres, binds: Self.binds(values)))
    }

    /// Marks the locks of `table` taken, or throws when a later table's were taken before.
    func takeLocks(of table: LockedTable) throws {
        if let lastLocked, table < lastLocked {
            throw StoreInconsistency("rows of \(table) locked after rows of \(lastLocked): out of the lock order")
        }
        lastLocked = table
    }

    var takesRowLocks: Bool { true }

    func isUniqueViolation(_ error: any Error) -> Bool {
        // A `unique_violation` (SQLSTATE 23505).
        guard let error = error as? PSQLError else { return false }
        return error.code == .server && error.serverInfo?[.sqlState] == "23505"
    }

    func audit(_ entries: [AuditRecord], environmentID: String, now: Date) async throws {
        try await PostgresStore.audit(connection, environmentID: environmentID, entries, now: now)
    }

    func announce(_ changes: [StandingChange]) async throws {
        try await PostgresStore.announce(changes, on: connection)
    }

    /// The realm is unplaced again: it takes a new position after commit (see ``PostgresFeed``).
    func markRealmInitialized(path: String, at time: Double) async throws {
        try await execute(RealmFeedStatements.markInitialized, time, nil, path)
    }

    func apply(_ move: SessionMove) async throws -> (moved: [MovedSession], events: [StoredEvent]) {
        try await PostgresStore.apply(move, connection)
    }

    /// The state taken and the session read in one statement rather than two.
    func consume(state: String, now: Date) async throws -> OnboardingSession? {
        try await PostgresStore.consume(state: state, now: now, on: connection)
    }

    func apply(_ members: MembershipBatch, at time: Double) async throws {
        try await connection.execute(members.statement(at: time))
    }

    func apply(_ recompute: RoleRecompute, environmentID: String, now: Date) async throws {
        try await PostgresStore.recomputeRoles(recompute, connection, environmentID: environmentID, now: now)
    }

    func issue(_ refreshToken: RefreshTokenIssue, now: Double) async throws {
        try await PostgresStore.issueRefreshToken(connection, refreshToken, now: now)
    }

    /// The three statements in one, so a sign-in's completion costs one round trip less.
    func markSignedIn(superseding tokens: SupersededRefreshTokens, now: Double) async throws -> PostgresRandomAccessRow? {
        try await connection.first(
            """
            WITH revoked AS (UPDATE refresh_tokens SET revoked_at = \(tokens.at) WHERE device_id = \(tokens.deviceID) AND revoked_at IS NULL),
            found AS (SELECT name, platform, signed_in_at FROM devices WHERE id = \(tokens.deviceID)),
            marked AS (UPDATE devices SET signed_in_at = \(now) WHERE id = \(tokens.deviceID) AND signed_in_at IS NULL)
            SELECT name, platform, signed_in_at IS NOT NULL AS signed_in_before FROM found
            """)
    }

    func findOrCreateUser(email: String, environmentID: String, now: Date, actor: String) async throws -> (id: String, created: Bool) {
        try takeLocks(of: .users)
        let found = try await PostgresStore.findOrCreateUser(
            connection, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: actor)
        return (found.id, found.created)
    }

    private static func binds(_ values: [(any StoredValue)?]) -> PostgresBindings {
        var binds = PostgresBindings()
        for value in values {
            if let value { value.bind(to: &binds) } else { binds.appendNull() }
        }
        return binds
    }
}

extension PostgresRandomAccessRow: StoredRow {
    func column<Value: StoredValue>(_ name: String, as type: Value.Type) throws -> Value {
        try Value.read(postgres: self[name])
    }

    func column<Value: StoredValue>(at index: Int, as type: Value.Type) throws -> Value {
        try Value.read(postgres: self[index])
    }
}

extension PostgresStore: TransactionalStore, SharedDeviceStore, BadgeStore, ConsoleStore, ScimStore {
    func writing<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws -> T {
        try await write { connection in try await body(PostgresTransaction(connection)) }
    }

    func writingGrouped<T: Sendable>(
        announcing feed: StoreFeed?, _ body: @escaping @Sendable (PostgresTransaction) async throws -> T
    ) async throws -> T {
        try await writeGrouped(publishing: feed.map(PostgresFeed.init)) { connection in try await body(PostgresTransaction(connection)) }
    }

    func reading<T: Sendable>(_ body: @escaping @Sendable (PostgresTransaction) async throws -> T) async throws -> T {
        try await read { connection in try await body(PostgresTransaction(connection)) }
    }

    func announce(_ feed: StoreFeed) {
        publish(PostgresFeed(feed))
    }

    func placeCommitted(_ feed: StoreFeed) async throws {
        try await placeCommitted(PostgresFeed(feed))
    }
}

extension PostgresFeed {
    init(_ feed: StoreFeed) {
        switch feed {
        case .sessionEvents: self = .sessionEvents
        case .realms: self = .realms
        case .lifecycleEvents: self = .lifecycleEvents
        }
    }
}

extension MembershipBatch {
    /// The batch as one statement.
    func statement(at time: Double) -> PostgresQuery {
        switch change {
        case .joinTeam:
            "INSERT INTO team_members (team_id, user_id, added_at) SELECT \(groupID), person, \(time) FROM unnest(\(userIDs)::text[]) AS person"
        case .leaveTeam: "DELETE FROM team_members WHERE team_id = \(groupID) AND user_id = ANY(\(userIDs))"
        case .joinRoleGroup:
            "INSERT INTO scim_group_members (group_id, user_id) SELECT \(groupID), person FROM unnest(\(userIDs)::text[]) AS person"
        case .leaveRoleGroup: "DELETE FROM scim_group_members WHERE group_id = \(groupID) AND user_id = ANY(\(userIDs))"
        }
    }
}
