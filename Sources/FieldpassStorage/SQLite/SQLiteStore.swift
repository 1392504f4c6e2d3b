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
    public let committedEvents = CommittedEvents()
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
}
