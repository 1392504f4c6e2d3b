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

    /// The registration's device, its session and its count in one statement, built from the
    /// device ``RegisteredDevice`` decided: besides the proof's round trip, two round trips
    /// for a newcomer (the person created with their audit entry, then the statement), three
    /// for someone known (the insert that finds them taken, then their row read and locked),
    /// and one more when the registration names an installation whose live device a known
    /// person may have.
    public func registerDevice(_ registration: DeviceRegistration) async throws -> OnboardingSession {
        try await writingGrouped(announcing: .realms) { transaction in
            let now = registration.now.timeIntervalSince1970
            try await transaction.takeProof(registration.dpopProof)
            // Locked: registrations and sign-ins of one person run one after another.
            try transaction.takeLocks(of: .users)
            let user = try await Self.findOrCreateUser(
                transaction.connection, email: registration.email, environmentID: registration.environmentID, now: now
            )
            let deviceID = try await transaction.registeredDeviceID(registration, personID: user.id, personCreated: user.created)
            // Registering leaves a reused device's last_seen_at as it was (the update only makes
            // RETURNING give the row): an install_id is no secret, so only a sign-in or a refresh
            // says the device was seen.
            guard
                try await transaction.connection.value(
                    """
                    WITH device AS (
                        INSERT INTO devices (id, user_id, name, platform, install_id, created_at, last_seen_at)
                        VALUES (\(deviceID), \(user.id), \(registration.deviceName), \(registration.platform), \(registration.installID),
                                \(now), \(now))
                        ON CONFLICT (id) DO UPDATE SET last_seen_at = devices.last_seen_at
                        RETURNING id
                    ), counted AS (
                        INSERT INTO onboarding_outcomes (environment_id, outcome, at)
                        VALUES (\(registration.environmentID), \(OnboardingOutcome.registered.rawValue), \(now))
                    )
                    INSERT INTO sessions (id, user_id, device_id, environment_id, email, state, nonce, code_verifier,
                                          user_code, login_id, csrf_token, status, created_at, expires_at,
                                          app_redirect_uri, app_state, dpop_jkt)
                    SELECT \(registration.sessionID), \(user.id), device.id, \(registration.environmentID),
                           \(registration.email), \(registration.state), \(registration.nonce), \(registration.codeVerifier),
                           \(registration.userCode), \(registration.confirmation?.loginID), \(registration.confirmation?.csrfToken),
                           \(SessionRules.registered.rawValue), \(now), \(registration.expiresAt.timeIntervalSince1970),
                           \(registration.appReturn?.uri), \(registration.appReturn?.state), \(registration.dpopThumbprint)
                    FROM device
                    RETURNING device_id
                    """,
                    as: String.self
                ) != nil
            else { throw StoreInconsistency("no device for a registration") }
            return registration.pendingSession(userID: user.id, deviceID: deviceID, role: user.role)
        }
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
