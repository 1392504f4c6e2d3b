public import FieldpassDomain
public import Foundation
import GRDB

/// The default store: one SQLite file in WAL mode, shared safely by the server and the CLI.
///
/// Writes run in `BEGIN IMMEDIATE` transactions so that two processes never deadlock on a
/// lock upgrade; readers never block writers (WAL). One writer at a time also means row ids
/// and feed positions commit in the order they are handed out.
public struct SQLiteStore: OnboardingStore, DirectoryStore, CredentialStore, StoreChanges {
    let pool: DatabasePool
    /// How the events it stores name realms (see ``RealmPrefixes``).
    let realmPrefixes: RealmPrefixes
    public let sessionEvents = ChangeSignal()
    public let realmFeed = ChangeSignal()
    /// Signalled after every write: any of them may have been audited, and so have stored
    /// lifecycle events; a signal costs one uncontended lock when no long-poll waits.
    public let lifecycleFeed = ChangeSignal()
    /// Registrations and refresh rotations share write transactions (see ``GroupCommit``).
    let groupCommit = GroupCommit<SQLiteChange>()
    /// Signals cover every process: this one's at once, others' (the CLI's) through
    /// ``SQLiteChangeWatcher``; readers look this often regardless.
    public var safetyNetInterval: Duration { .seconds(5) }
    /// Bearer checks read the file: no network round trip, and they see the CLI's changes,
    /// which no signal of this process reports.
    public var revocations: LiveRevocations? { nil }

    /// Wakes every reader: another process may have changed anything.
    func signalAll() {
        sessionEvents.signal()
        realmFeed.signal()
        lifecycleFeed.signal()
    }

    /// Opens (creating if needed) the database at `path`. Call ``migrate()`` before serving.
    ///
    /// The database holds sessions and token hashes, so a folder it creates is 0700 and a
    /// file it creates is 0600; SQLite gives its `-wal` and `-shm` files the same mode.
    public init(path: String, realmPrefixes: RealmPrefixes = RealmPrefixes()) throws {
        self.realmPrefixes = realmPrefixes
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        // Created here, not by SQLite, for its mode; another process may create it meanwhile.
        if !FileManager.default.fileExists(atPath: path),
            !FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            !FileManager.default.fileExists(atPath: path)
        {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: path])
        }
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            // WAL + NORMAL is durable against application crashes, which is what sessions need.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        pool = try DatabasePool(path: path, configuration: configuration)
    }

    /// Applies the migrations not applied yet.
    public func migrate() throws {
        try SQLiteSchema.migrator.migrate(pool)
    }

    /// The migrations not applied yet (all of them on a new file).
    public func pendingMigrations() throws -> [String] {
        let migrator = SQLiteSchema.migrator
        let applied = try pool.read { db in try migrator.appliedIdentifiers(db) }
        return migrator.migrations.filter { !applied.contains($0) }
    }

    /// Runs `body` in an immediate write transaction. Like every call of this store, it throws
    /// a failure of the database itself as ``StoreUnavailable``: SQLite's errors are classified
    /// here, at the store's boundary, and nowhere else.
    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        defer { lifecycleFeed.signal() }
        do {
            return try await pool.writeWithoutTransaction { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    result = try body(db)
                    return .commit
                }
                guard let result else { throw DatabaseError(message: "transaction produced no result") }
                return result
            }
        } catch {
            throw StoreUnavailable(classifying: error) ?? error
        }
    }

    /// Runs `body` on a reader, its database failures thrown as ``StoreUnavailable``.
    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw StoreUnavailable(classifying: error) ?? error
        }
    }

    public func registerDevice(_ registration: DeviceRegistration) async throws -> OnboardingSession {
        // The realm feed may have a new realm.
        defer { realmFeed.signal() }
        return try await writeGrouped { db in
            let now = registration.now.timeIntervalSince1970
            try Self.takeProof(registration.dpopProof, db)
            let userID = try Self.findOrCreateUser(
                db, email: registration.email, environmentID: registration.environmentID, now: now
            )
            let role =
                try String.fetchOne(db.cachedStatement(sql: "SELECT role FROM users WHERE id = ?"), arguments: [userID])
                ?? Role.worker.rawValue
            let device = RegisteredDevice.of(registration, newID: UUID().uuidString.lowercased())
            let deviceID = device.id(
                live: try device.reusedInstallation.flatMap { installation in
                    try String.fetchOne(
                        db.cachedStatement(sql: "SELECT id FROM devices WHERE user_id = ? AND install_id = ? AND revoked_at IS NULL"),
                        arguments: [userID, installation]
                    )
                })
            // A reused installation's device keeps its last_seen_at: an install_id is no secret,
            // so only a sign-in or a refresh says the device was seen.
            try db.execute(
                cached: """
                    INSERT INTO devices (id, user_id, name, platform, install_id, created_at, last_seen_at) VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (id) DO NOTHING
                    """,
                arguments: [deviceID, userID, registration.deviceName, registration.platform, registration.installID, now, now]
            )
            try db.execute(
                cached: """
                    INSERT INTO sessions (id, user_id, device_id, environment_id, email, state, nonce, code_verifier,
                                          user_code, login_id, csrf_token, status, created_at, expires_at,
                                          app_redirect_uri, app_state, dpop_jkt)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    registration.sessionID, userID, deviceID, registration.environmentID, registration.email,
                    registration.state, registration.nonce, registration.codeVerifier, registration.userCode,
                    registration.confirmation?.loginID, registration.confirmation?.csrfToken, SessionRules.registered.rawValue, now,
                    registration.expiresAt.timeIntervalSince1970, registration.appReturn?.uri, registration.appReturn?.state,
                    registration.dpopThumbprint,
                ]
            )
            try Self.countOutcome(.registered, environmentID: registration.environmentID, db: db, now: now)
            return registration.pendingSession(userID: userID, deviceID: deviceID, role: role)
        }
    }

    public func consumeState(_ state: String, now: Date) async throws -> OnboardingSession? {
        try await write { db in try Self.consume(state: state, now: now, db: db) }
    }

    public func refuseState(
        _ state: String, now: Date, failure: @escaping @Sendable (OnboardingSession) -> LoginFailure
    ) async throws -> RefusedSignIn? {
        let refused = try await write { db -> RefusedSignIn? in
            guard let session = try Self.consume(state: state, now: now, db: db) else { return nil }
            let decided = failure(session)
            return RefusedSignIn(
                session: session, failure: decided, events: try Self.fail(sessionID: session.id, decided, now: now, db: db))
        }
        if let refused, !refused.events.isEmpty { sessionEvents.signal() }
        return refused
    }

    private static func consume(state: String, now: Date, db: Database) throws -> OnboardingSession? {
        let taken = try apply(SessionRules.callback(state: state, now: now.timeIntervalSince1970), db)
        return try taken.moved.first.flatMap { try fetchSession(db, id: $0.id) }
    }

    public func expiredAppReturn(state: String, now: Date) async throws -> AppReturn? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: OnboardingStatements.expiredAppReturn.sqlite), arguments: [state, now.timeIntervalSince1970]
            ).flatMap { AppReturnColumns.appReturn(uri: $0["app_redirect_uri"], state: $0["app_state"]) }
        }
    }

    public func session(id: String) async throws -> OnboardingSession? {
        try await read { db in try Self.fetchSession(db, id: id) }
    }

    static func fetchSession(_ db: Database, id: String) throws -> OnboardingSession? {
        guard
            let row = try Row.fetchOne(db.cachedStatement(sql: OnboardingStatements.session.sqlite), arguments: [id])
        else { return nil }
        return OnboardingSession(
            id: row["id"], userID: row["user_id"], deviceID: row["device_id"],
            environmentID: row["environment_id"], email: row["email"], role: row["role"],
            nonce: row["nonce"], codeVerifier: row["code_verifier"],
            status: OnboardingSession.Status(rawValue: row["status"]) ?? .failed,
            expiresAt: Date(timeIntervalSince1970: row["expires_at"]), confirmsDevice: row["confirms_device"],
            browserBinding: row["browser_binding"],
            appReturn: AppReturnColumns.appReturn(uri: row["app_redirect_uri"], state: row["app_state"]),
            dpopThumbprint: row["dpop_jkt"]
        )
    }
}
