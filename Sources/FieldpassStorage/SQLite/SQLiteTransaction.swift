public import FieldpassDomain
import Foundation
import GRDB

/// A transaction on SQLite (``StoreTransaction``): GRDB's database access, used on its
/// thread only (``WriterThreadExecutor``). The single writer holds every lock, so `locking`
/// is nothing here.
struct SQLiteTransaction: StoreTransaction, @unchecked Sendable {
    let db: Database

    func rows(_ statement: SharedStatement, _ values: [(any StoredValue)?], locking: LockedTable?) async throws -> [Row] {
        try Row.fetchAll(db.cachedStatement(sql: statement.sqlite), arguments: Self.arguments(values))
    }

    func execute(_ statement: SharedStatement, _ values: [(any StoredValue)?]) async throws {
        try db.cachedStatement(sql: statement.sqlite).execute(arguments: Self.arguments(values))
    }

    var takesRowLocks: Bool { false }

    func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? DatabaseError)?.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
    }

    func audit(_ entries: [AuditRecord], environmentID: String, now: Date) async throws {
        for entry in entries { try SQLiteStore.audit(db, environmentID: environmentID, entry, now: now) }
    }

    /// Nothing to tell: every bearer check reads the file.
    func announce(_ changes: [StandingChange]) async throws {}

    /// The realm takes the realm feed's next position at once: the single writer commits
    /// positions in the order it hands them out.
    func markRealmInitialized(path: String, at time: Double) async throws {
        try await execute(RealmFeedStatements.markInitialized, time, try SQLiteStore.nextFeedSeq(db), path)
    }

    func apply(_ move: SessionMove) async throws -> (moved: [MovedSession], events: [StoredEvent]) {
        try SQLiteStore.apply(move, db)
    }

    func apply(_ members: MembershipBatch, at time: Double) async throws {
        for userID in members.userIDs {
            switch members.change {
            case .joinTeam: try await execute(TeamStatements.addMember, members.groupID, userID, time)
            case .leaveTeam: try await execute(TeamStatements.removeMember, members.groupID, userID)
            case .joinRoleGroup: try await execute(ScimStatements.addRoleGroupMember, members.groupID, userID)
            case .leaveRoleGroup: try await execute(ScimStatements.removeRoleGroupMember, members.groupID, userID)
            }
        }
    }

    func apply(_ recompute: RoleRecompute, environmentID: String, now: Date) async throws {
        try SQLiteStore.recomputeRoles(recompute, db, environmentID: environmentID, now: now.timeIntervalSince1970)
    }

    func issue(_ refreshToken: RefreshTokenIssue, now: Double) async throws {
        try SQLiteStore.issueRefreshToken(db, refreshToken, now: now)
    }

    func findOrCreateUser(email: String, environmentID: String, now: Date, actor: String) async throws -> (id: String, created: Bool) {
        try SQLiteStore.findOrCreateUser(db, email: email, environmentID: environmentID, now: now.timeIntervalSince1970, actor: actor)
    }

    private static func arguments(_ values: [(any StoredValue)?]) -> StatementArguments {
        StatementArguments(values.map { $0?.sqliteValue ?? .null })
    }
}

extension Row: StoredRow {
    func column<Value: StoredValue>(_ name: String, as type: Value.Type) throws -> Value {
        try Value.read(sqlite: self[name] ?? .null)
    }

    func column<Value: StoredValue>(at index: Int, as type: Value.Type) throws -> Value {
        try Value.read(sqlite: self[index] ?? .null)
    }
}

extension SQLiteStore: TransactionalStore, SharedDeviceStore, BadgeStore, ConsoleStore, ScimStore {
    func writing<T: Sendable>(_ body: @escaping @Sendable (SQLiteTransaction) async throws -> T) async throws -> T {
        try await write { db in try Self.run(body, db) }
    }

    func writingGrouped<T: Sendable>(
        announcing feed: StoreFeed?, _ body: @escaping @Sendable (SQLiteTransaction) async throws -> T
    ) async throws -> T {
        defer { if let feed { announce(feed) } }
        return try await writeGrouped { db in try Self.run(body, db) }
    }

    func reading<T: Sendable>(_ body: @escaping @Sendable (SQLiteTransaction) async throws -> T) async throws -> T {
        try await read { db in try Self.run(body, db) }
    }

    func announce(_ feed: StoreFeed) {
        switch feed {
        case .sessionEvents: sessionEvents.signal()
        case .realms: realmFeed.signal()
        case .lifecycleEvents: lifecycleFeed.signal()
        }
    }

    /// Bearer checks read the file: a revocation is seen as soon as it committed.
    func revocationsCaughtUp() async {}

    /// The single writer commits feed positions in the order it hands them out.
    func placeCommitted(_ feed: StoreFeed) async throws {}

    private static func run<T: Sendable>(_ body: @escaping @Sendable (SQLiteTransaction) async throws -> T, _ db: Database) throws -> T {
        let transaction = SQLiteTransaction(db: db)
        return try WriterThreadExecutor.run { try await body(transaction) }
    }
}
