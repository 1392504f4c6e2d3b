import FieldpassDomain
import Foundation

/// One transaction of either store, as the operations written once see it (see
/// ``TransactionalStore``): statements both stores run (``SharedStatement``), their values
/// and rows in one set of Swift types (``StoredValue``, ``StoredRow``), and the few writes
/// whose statements must differ by dialect.
///
/// SQLite runs an operation's transaction on its writer's thread, synchronously (see
/// ``WriterThreadExecutor``); PostgreSQL awaits each statement. An operation awaits nothing
/// but its transaction.
protocol StoreTransaction {
    associatedtype Row: StoredRow

    /// Every row of `statement`. Given `locking`, the rows are locked until the transaction
    /// ends (PostgreSQL's `FOR UPDATE`), in ``LockedTable``'s order.
    func rows(_ statement: SharedStatement, _ values: [(any StoredValue)?], locking: LockedTable?) async throws -> [Row]

    /// Runs `statement` for its effect.
    func execute(_ statement: SharedStatement, _ values: [(any StoredValue)?]) async throws

    /// Whether rows read with `locking` are locked at all: PostgreSQL's are; SQLite's one
    /// writer already holds every lock, so a read made only to lock is skipped there.
    var takesRowLocks: Bool { get }

    /// Whether `error` is a unique index refusing a row: the race a rule could not see.
    func isUniqueViolation(_ error: any Error) -> Bool

    /// Stores `entries` and the lifecycle events they stand for (``LifecycleEventRules``), in order.
    func audit(_ entries: [AuditRecord], environmentID: String, now: Date) async throws

    /// Tells every instance that `changes` moved what stands against tokens, at commit.
    func announce(_ changes: [StandingChange]) async throws

    /// Marks the realm initialized, a change the realm feed shows again at a new position:
    /// announce ``StoreFeed/realms`` after commit.
    func markRealmInitialized(path: String, at time: Double) async throws

    /// Applies `move`: the conditional update, each moved session's counts and events, in the
    /// move's event order. Returns the moved sessions in that order and the events stored.
    func apply(_ move: SessionMove) async throws -> (moved: [MovedSession], events: [StoredEvent])

    /// Takes the state of a waiting session (``SessionRules/callback(state:now:)``) and reads the
    /// session taken; `nil` when none waited with it. Two statements unless the dialect folds them.
    func consume(state: String, now: Date) async throws -> OnboardingSession?

    /// People joining, or leaving, one team or role group, in as few statements as the dialect can.
    func apply(_ members: MembershipBatch, at time: Double) async throws

    /// Applies a ``RoleRecompute`` (``RoleRecomputeSQL``): its audit entries, lifecycle events and roles.
    func apply(_ recompute: RoleRecompute, environmentID: String, now: Date) async throws

    /// The person of the environment with `email`, locked, or created with their personal
    /// realm (audited as `actor`'s creation) when there is none: `created` says which. Of two
    /// transactions creating one person, the second waits for the first and then finds them.
    /// The new realm enters the realm feed: announce ``StoreFeed/realms`` after commit.
    func findOrCreateUser(email: String, environmentID: String, now: Date, actor: String) async throws -> (id: String, created: Bool)

    /// Revokes the device's earlier refresh tokens and marks it signed in, the first time;
    /// its `name`, `platform` and `signed_in_before`, or `nil` when it is gone. Three
    /// statements (``OnboardingStatements``) unless the dialect folds them into one.
    func markSignedIn(superseding tokens: SupersededRefreshTokens, now: Double) async throws -> Row?

    /// Stores the token and marks its device seen; a rotation's successor marks the token it
    /// replaces rotated.
    func issue(_ refreshToken: RefreshTokenIssue, now: Double) async throws
}

extension StoreTransaction {
    func rows(_ statement: SharedStatement, _ values: (any StoredValue)?..., locking: LockedTable? = nil) async throws -> [Row] {
        try await rows(statement, values, locking: locking)
    }

    /// Locks the rows of `statement` in `table` until the transaction ends, where rows are
    /// locked (``takesRowLocks``): a lock taken first so that later reads keep the order.
    func lock(_ table: LockedTable, by statement: SharedStatement, _ values: (any StoredValue)?...) async throws {
        if takesRowLocks { _ = try await rows(statement, values, locking: table) }
    }

    func first(_ statement: SharedStatement, _ values: (any StoredValue)?..., locking: LockedTable? = nil) async throws -> Row? {
        try await rows(statement, values, locking: locking).first
    }

    /// The first column of the first row, if there is a row.
    func value<Value: StoredValue>(
        _ statement: SharedStatement, _ values: (any StoredValue)?..., as type: Value.Type = Value.self, locking: LockedTable? = nil
    ) async throws -> Value? {
        try await rows(statement, values, locking: locking).first?.column(at: 0, as: Value.self)
    }

    /// The list a statement of one value answers (``SQLDialect/list(_:)``); empty when none.
    func list(_ statement: SharedStatement, _ values: (any StoredValue)?...) async throws -> [String] {
        try await rows(statement, values, locking: nil).first?.column(at: 0, as: [String].self) ?? []
    }

    /// The first column of every row.
    func values<Value: StoredValue>(
        _ statement: SharedStatement, _ values: (any StoredValue)?..., as type: Value.Type = Value.self
    ) async throws -> [Value] {
        try await rows(statement, values, locking: nil).map { try $0.column(at: 0, as: Value.self) }
    }

    func execute(_ statement: SharedStatement, _ values: (any StoredValue)?...) async throws {
        try await execute(statement, values)
    }

    func audit(_ entry: AuditRecord, environmentID: String, now: Date) async throws {
        try await audit([entry], environmentID: environmentID, now: now)
    }
}
