public import FieldpassDomain
public import FieldpassStorage
public import Foundation
import Logging
import Tokens

/// A migrated store in a temporary folder (a SQLite file, or a new database on the test
/// PostgreSQL), with its services running; all removed afterwards. Environments `dev`
/// (example.com) and `other` (other.test), with the default realm prefixes.
public struct StoreTestEnvironment: Sendable {
    public let folder: URL
    public let storage: StorageSettings
    public let realmPrefixes = RealmPrefixes()
    public let store: any FieldpassStore

    /// Opens the store, runs `body` with its services running, and always removes the folder
    /// (and the database).
    /// `maxConnections` bounds a PostgreSQL store's pool. `timeout` is its answer deadline in
    /// seconds: a test waits for the database's answer, however busy the machine (the whole
    /// suite runs in parallel on two cores), so the default is far above production's 5 s;
    /// a test of the deadline itself passes the production value.
    public static func with<T: Sendable>(
        store kind: StoreKind = .sqlite, maxConnections: Int = 20, timeout: Int = 60,
        _ body: @Sendable (StoreTestEnvironment) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let sqlitePath = folder.appendingPathComponent("fieldpass.sqlite").path
        switch kind {
        case .sqlite:
            return try await with(folder: folder, storage: StorageSettings(driver: .sqlite, sqlitePath: sqlitePath, postgres: nil), body)
        case .postgres:
            return try await PostgresTestDatabase.with { database in
                let postgres = PostgresSettings(
                    host: database.host, port: database.port, database: database.database, username: database.user,
                    password: database.password, maxConnections: maxConnections, timeout: timeout, tls: .disable
                )
                return try await with(
                    folder: folder, storage: StorageSettings(driver: .postgres, sqlitePath: sqlitePath, postgres: postgres), body)
            }
        }
    }

    private static func with<T: Sendable>(
        folder: URL, storage: StorageSettings, _ body: @Sendable (StoreTestEnvironment) async throws -> T
    ) async throws -> T {
        let logger = Logger(label: "test")
        try await StoreFactory.migrate(storage, logger: logger)
        let opened = try StoreFactory.open(storage, realmPrefixes: RealmPrefixes(), logger: logger)
        return try await opened.use { store in try await body(StoreTestEnvironment(folder: folder, storage: storage, store: store)) }
    }

    /// A registration straight into the store (or into `other`, another instance's store on
    /// the same database), as `register_device` makes it.
    public func register(
        email: String = "alice@example.com", sessionID: String? = nil, expiresIn: TimeInterval = 600,
        appReturn: AppReturn? = nil, installID: String? = OnboardingStoreRegistration.phone, on other: (any OnboardingStore)? = nil
    ) async throws -> (OnboardingSession, state: String) {
        try await (other ?? store).register(
            email: email, sessionID: sessionID, expiresIn: expiresIn, appReturn: appReturn, installID: installID)
    }

    /// An admin of `dev` at the admin API, made by the CLI: a change they make is checked
    /// against their record as the change's transaction reads it.
    public func admin(email: String = "boss@example.com") async throws -> DirectoryCaller {
        .admin(try await store.setRole(.admin, email: email, by: .cli(environmentID: "dev"), managed: .none, now: Date()))
    }
}

/// What the tests' registrations are made of.
public enum OnboardingStoreRegistration {
    /// The installation id of the one phone every test person registers from, unless a test
    /// names another (or none, for a new device each time).
    public static let phone = "pixel-installation-0001"
}

extension OnboardingStore {
    /// A registration in environment `dev`, as `register_device` makes it, with random secrets.
    public func register(
        email: String = "alice@example.com", sessionID: String? = nil, expiresIn: TimeInterval = 600, appReturn: AppReturn? = nil,
        installID: String? = OnboardingStoreRegistration.phone, dpopThumbprint: String? = nil
    ) async throws -> (OnboardingSession, state: String) {
        let state = try Crypto.randomToken()
        let session = try await registerDevice(
            DeviceRegistration(
                email: email, environmentID: "dev", deviceName: "Pixel", platform: "android", installID: installID,
                sessionID: try sessionID ?? Crypto.randomToken(), state: state, nonce: try Crypto.randomToken(),
                codeVerifier: try Crypto.randomToken(), userCode: "BCDF-GHJK", confirmation: nil, appReturn: appReturn,
                dpopProof: try dpopThumbprint.map {
                    DPoPRules.AcceptedProof(thumbprint: $0, replayKey: try Crypto.randomToken(), rememberUntil: Date() + 60)
                }, now: Date(), expiresAt: Date().addingTimeInterval(expiresIn)
            )
        )
        return (session, state)
    }
}

extension CompletedLogin {
    /// The sign-in of `session` completed, as the callback hands it to the store.
    public static func test(_ session: OnboardingSession) -> CompletedLogin {
        CompletedLogin(
            session: session, accessToken: "access", accessTokenTTL: 900,
            refreshToken: "refresh", refreshTokenHash: "hash-\(session.id)", refreshTokenExpiresAt: Date().addingTimeInterval(3600),
            refreshTokenMaxExpiresAt: Date().addingTimeInterval(7200)
        )
    }
}
