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
    /// Places and announces feeds after commits, one run per feed at a time (see ``FeedPublisher``).
    let publisher = FeedPublisher()

    public var sessionEvents: ChangeSignal { changes.sessionEvents }
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

    /// Two round trips besides the batch's savepoint for a newcomer (the person created with
    /// their audit entry, then the device and the session in one statement), three for
    /// someone known (the insert that finds them taken, then their row read and locked).
    public func registerDevice(_ registration: DeviceRegistration) async throws -> OnboardingSession {
        try await writeGrouped(publishing: .realms) { connection in
            let now = registration.now.timeIntervalSince1970
            try await Self.takeProof(registration.dpopProof, connection)
            // Locked: registrations and sign-ins of one person run one after another.
            let user = try await Self.findOrCreateUser(
                connection, email: registration.email, environmentID: registration.environmentID, now: now
            )
            // The live device of this installation is used again, with a new session; without
            // an installation to reuse, the lookup (`install_id = NULL`) finds none. Registering
            // leaves its last_seen_at as it was (the update only makes RETURNING give the row):
            // an install_id is no secret, so only a sign-in or a refresh says the device was seen.
            let device = RegisteredDevice.of(registration, newID: UUID().uuidString.lowercased())
            guard
                let deviceID = try await connection.value(
                    """
                    WITH live AS (
                        SELECT id FROM devices
                        WHERE user_id = \(user.id) AND install_id = \(device.reusedInstallation) AND revoked_at IS NULL
                    ), device AS (
                        INSERT INTO devices (id, user_id, name, platform, install_id, created_at, last_seen_at)
                        VALUES (coalesce((SELECT id FROM live), \(device.newID)), \(user.id),
                                \(registration.deviceName), \(registration.platform), \(registration.installID), \(now), \(now))
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
                )
            else { throw StoreInconsistency("no device for a registration") }
            return registration.pendingSession(userID: user.id, deviceID: deviceID, role: user.role)
        }
    }

    /// One statement, committed on its own: the callback's first step costs one round trip.
    public func consumeState(_ state: String, now: Date) async throws -> OnboardingSession? {
        try await read { connection in try await Self.consume(state: state, now: now, on: connection) }
    }

    /// One transaction, so one WAL flush where taking the state and failing the session on
    /// their own would wait for two.
    public func refuseState(
        _ state: String, now: Date, failure: @escaping @Sendable (OnboardingSession) -> LoginFailure
    ) async throws -> RefusedSignIn? {
        let refused = try await write { connection -> RefusedSignIn? in
            guard let session = try await Self.consume(state: state, now: now, on: connection) else { return nil }
            let decided = failure(session)
            let events = try await Self.fail(sessionID: session.id, decided, now: now, on: connection)
            return RefusedSignIn(session: session, failure: decided, events: events)
        }
        if let refused, !refused.events.isEmpty { publish(.sessionEvents) }
        return refused
    }

    /// One statement, built from ``SessionRules/callback(state:now:)``: the session taken and read.
    private static func consume(state: String, now: Date, on connection: PostgresConnection) async throws -> OnboardingSession? {
        let move = SessionRules.callback(state: state, now: now.timeIntervalSince1970)
        guard
            let row = try await connection.first(
                """
                WITH s AS (
                    UPDATE sessions SET state_used = true, status = \(move.transition.to.rawValue)
                    WHERE \(move.selection, at: move.at) AND status = ANY(\(move.transition.fromValues))
                    RETURNING *
                )
                SELECT \(unescaped: OnboardingStatements.sessionColumns) FROM s JOIN users u ON u.id = s.user_id
                """
            )
        else { return nil }
        return try Self.session(row)
    }

    public func expiredAppReturn(state: String, now: Date) async throws -> AppReturn? {
        try await read { connection in
            try await connection.first(PostgresQuery(OnboardingStatements.expiredAppReturn, state, now.timeIntervalSince1970)).flatMap {
                AppReturnColumns.appReturn(uri: try $0.get("app_redirect_uri"), state: try $0.get("app_state"))
            }
        }
    }

    public func session(id: String) async throws -> OnboardingSession? {
        try await read { connection in try await Self.fetchSession(connection, id: id) }
    }

    static func fetchSession(_ connection: PostgresConnection, id: String) async throws -> OnboardingSession? {
        try await connection.first(PostgresQuery(OnboardingStatements.session, id)).map(session)
    }

    private static func session(_ row: PostgresRandomAccessRow) throws -> OnboardingSession {
        OnboardingSession(
            id: try row.get("id"), userID: try row.get("user_id"), deviceID: try row.get("device_id"),
            environmentID: try row.get("environment_id"), email: try row.get("email"), role: try row.get("role"),
            nonce: try row.get("nonce"), codeVerifier: try row.get("code_verifier"),
            status: OnboardingSession.Status(rawValue: try row.get("status")) ?? .failed,
            expiresAt: Date(timeIntervalSince1970: try row.get("expires_at")), confirmsDevice: try row.get("confirms_device"),
            browserBinding: try row.get("browser_binding"),
            appReturn: AppReturnColumns.appReturn(uri: try row.get("app_redirect_uri"), state: try row.get("app_state")),
            dpopThumbprint: try row.get("dpop_jkt")
        )
    }
}
