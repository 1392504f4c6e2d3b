public import FieldpassDomain
public import Foundation
import Logging
import PostgresNIO
import _ConnectionPoolModule

/// The store for several instances: one PostgreSQL database shared by every instance and the CLI.
///
/// Transactions run at READ COMMITTED. Where SQLite's single writer made a read-then-write
/// safe, this store makes the write itself conditional (`UPDATE … WHERE … RETURNING`,
/// `ON CONFLICT`) or locks the row it depends on (`SELECT … FOR UPDATE`), so concurrent
/// instances keep the same guarantees. Every write that stores events, moves the realm feed
/// or changes what stands against tokens (``StandingChange``) sends a `NOTIFY` on
/// ``PostgresChangeListener/channel``, delivered at commit.
public struct PostgresStore: OnboardingStore, DirectoryStore, CredentialStore, StoreChanges {
    let client: PostgresClient
    /// How long one operation may wait for the database before it is `StoreUnavailable`.
    let timeout: Duration
    let changes: PostgresChangeListener
    /// How the events it stores name realms (see ``RealmPrefixes``).
    let realmPrefixes: RealmPrefixes
    /// Registrations and refresh rotations share write transactions (see ``GroupCommit``).
    /// Several commit at once: nothing they share is locked through a commit, and PostgreSQL
    /// flushes concurrent commits' WAL together. Smaller batches than SQLite's keep as many
    /// changes under way while each transaction stays short.
    let groupCommit = GroupCommit<PostgresChange>(maximumBatch: 32, concurrentTransactions: 4)
    let savepoints = SavepointPolicy()
    /// Places and announces feeds after commits, one run per feed at a time (see ``FeedPublisher``).
    let publisher = FeedPublisher()

    public var sessionEvents: ChangeSignal { changes.sessionEvents }
    public let committedEvents = CommittedEvents()
    public var realmFeed: ChangeSignal { changes.realmFeed }
    public var lifecycleFeed: ChangeSignal { changes.lifecycleFeed }
    /// Notifications carry every change, and a listener that lost its connection signals
    /// everything once it listens again: the safety net is a backstop, and every waiting
    /// long-poll reads at it, so it is seconds apart.
    public var safetyNetInterval: Duration { .seconds(5) }
    public var revocations: LiveRevocations? { changes.revocations }

    /// Statements log nothing: their binds hold tokens and codes.
    static let queryLogger = Logger(label: "fieldpass.postgres", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A store on `client`, which must be running. Migrations are not run here.
    init(client: PostgresClient, listener: PostgresChangeListener, timeout: Duration, realmPrefixes: RealmPrefixes) {
        self.client = client
        self.changes = listener
        self.timeout = timeout
        self.realmPrefixes = realmPrefixes
    }

    /// Runs `body` in one transaction, committed when it returns. A transaction that
    /// PostgreSQL aborted to break a deadlock, or one that found a team name it was to create
    /// taken meanwhile (``TeamNameTakenMeanwhile``), is run again (it changed nothing). A
    /// transaction that stored lifecycle events publishes their feed after its commit.
    ///
    /// The transaction is unanswered after ``timeout``, or, given a `deadline`, when that passes.
    func write<T: Sendable>(
        deadline: AnswerDeadline? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let lifecycle = LifecycleWrites()
        let value = try await LifecycleWrites.$current.withValue(lifecycle) {
            try await transaction(deadline: deadline ?? AnswerDeadline(timeout: timeout), body)
        }
        if lifecycle.any { publish(.lifecycleEvents) }
        return value
    }

    private func transaction<T: Sendable>(
        deadline: AnswerDeadline, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await answered(before: deadline) {
            var attempt = 1
            while true {
                do {
                    return try await client.withTransaction(logger: Self.queryLogger) { connection in
                        try await body(connection)
                    }
                } catch let error as PostgresTransactionError {
                    let cause = error.closureError ?? error.commitError ?? error.beginError ?? error
                    guard attempt < 3, (cause as? PSQLError).map(Self.isRetryable) ?? (cause is TeamNameTakenMeanwhile) else {
                        throw cause
                    }
                    attempt += 1
                }
            }
        }
    }

    /// `deadlock_detected` and `serialization_failure`: the transaction was rolled back whole.
    static func isRetryable(_ error: PSQLError) -> Bool {
        let state = error.serverInfo?[.sqlState]
        return state == "40P01" || state == "40001"
    }

    /// Runs `body` on a pooled connection, outside a transaction: each statement commits on
    /// its own, so a write that is one statement needs no `BEGIN` and `COMMIT` round trips.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await answered(before: AnswerDeadline(timeout: timeout)) {
            try await client.withConnection { connection in try await body(connection) }
        }
    }

    /// Runs `operation`, turning an unreachable database (or one that leaves `deadline` pass)
    /// into ``StoreUnavailable``; other errors pass through.
    private func answered<T: Sendable>(
        before deadline: AnswerDeadline, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        do {
            guard let value = try await deadline.race(operation) else {
                throw StoreUnavailable("no answer from PostgreSQL within \(timeout)")
            }
            return value
        } catch let error as PSQLError where Self.isUnavailability(error) {
            throw StoreUnavailable("PostgreSQL connection: \(error.code)")
        } catch is ConnectionPoolError {
            throw StoreUnavailable("PostgreSQL connection pool")
        }
    }

    /// Connection failures, and server errors of class 08 (connection), 57P (shutting down),
    /// 53 (insufficient resources) or 25006 (read-only transaction).
    static func isUnavailability(_ error: PSQLError) -> Bool {
        guard error.code == .server else { return true }
        let state = error.serverInfo?[.sqlState] ?? ""
        // 53: out of disk, memory or connections; 25006: a read-only (standby) server.
        return state.hasPrefix("08") || state.hasPrefix("57P") || state.hasPrefix("53") || state == "25006"
    }

    /// A registration in one statement for a newcomer (``registerNewcomer(_:on:)``), besides
    /// the proof's round trip. For someone known, three: the newcomer's statement that finds
    /// the email taken and writes nothing, their row read and locked, then the device, its
    /// session and its count; and one more when the registration names an installation whose
    /// live device they may have.
    public func registerDevice(_ registration: DeviceRegistration) async throws -> OnboardingSession {
        try await writingGrouped(announcing: .realms) { transaction in
            try await transaction.takeProof(registration.dpopProof)
            // Locked: registrations and sign-ins of one person run one after another.
            try transaction.takeLocks(of: .users)
            if let newcomer = try await Self.registerNewcomer(registration, on: transaction) { return newcomer }
            let connection = transaction.connection
            guard let user = try await Self.lockedUser(email: registration.email, environmentID: registration.environmentID, on: connection)
            else { throw DirectoryError.unknownUser }
            let userID: String = try user.get("id")
            let deviceID = try await transaction.registeredDeviceID(registration, personID: userID, personCreated: false)
            let now = registration.now.timeIntervalSince1970
            guard
                try await connection.value(
                    "WITH person AS (SELECT \(userID) AS id), \(registering: registration, deviceID: deviceID, at: now) SELECT device_id FROM session",
                    as: String.self
                ) != nil
            else { throw StoreInconsistency("no device for a registration") }
            return registration.pendingSession(userID: userID, deviceID: deviceID, role: try user.get("role"))
        }
    }

    /// Creates the person with their personal realm, audit entry and lifecycle event, and
    /// writes their device, its session and its count, in one statement; `nil`, with nothing
    /// written, when the email is taken. Race-safe as ``findOrCreateUser(_:email:environmentID:now:actor:)``.
    private static func registerNewcomer(
        _ registration: DeviceRegistration, on transaction: PostgresTransaction
    ) async throws -> OnboardingSession? {
        let person = DirectoryRules.newPerson(email: registration.email, actor: "device")
        let deviceID = try await transaction.registeredDeviceID(registration, personID: person.id, personCreated: true)
        let now = registration.now.timeIntervalSince1970
        let writes: PostgresQuery = """
            \(creating: person, in: registration.environmentID, at: now), person AS (SELECT id FROM created), \
            \(registering: registration, deviceID: deviceID, at: now)
            """
        let statement = try auditing(
            person.audit, environmentID: registration.environmentID, now: registration.now,
            following: (writes, eachRowOf: "created"), then: "SELECT device_id FROM session"
        )
        guard try await transaction.connection.value(statement.query, as: String.self) != nil else { return nil }
        if statement.storesEvents { LifecycleWrites.current?.wrote() }
        return registration.pendingSession(userID: person.id, deviceID: deviceID, role: person.role.rawValue)
    }

    /// One statement, committed on its own (``consume(state:now:on:)``): the session taken and
    /// read, the callback's first step in one round trip.
    public func consumeState(_ state: String, now: Date) async throws -> OnboardingSession? {
        try await read { connection in try await Self.consume(state: state, now: now, on: connection) }
    }

    /// Takes the state of a waiting session and reads the session taken, in one statement built
    /// from ``SessionRules/callback(state:now:)``, which counts and stores nothing.
    static func consume(state: String, now: Date, on connection: PostgresConnection) async throws -> OnboardingSession? {
        let move = SessionRules.callback(state: state, now: now.timeIntervalSince1970)
        assert(move.events.isEmpty && move.outcomes.isEmpty, "a callback's move is folded as one that stores and counts nothing")
        return try await connection.first(
            """
            WITH s AS (
                UPDATE sessions SET state_used = true, status = \(move.transition.to.rawValue)
                WHERE \(move.selection, at: move.at) AND status = ANY(\(move.transition.fromValues))
                RETURNING *
            )
            SELECT \(unescaped: OnboardingStatements.sessionColumns) FROM s JOIN users u ON u.id = s.user_id
            """
        ).map(OnboardingSession.init(row:))
    }
}
