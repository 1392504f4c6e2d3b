import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import Tokens
@testable import Fieldpass

/// A temporary folder with a signing key, a SQLite file and a configuration; removed afterwards.
struct TestEnvironment {
    let folder: URL
    let configuration: FieldpassConfiguration
    let store: SQLiteStore

    /// Builds the environment, runs `body`, and always removes the folder.
    static func with<T>(
        issuer: String = "http://127.0.0.1:9",
        extraEnvironment: [String: String] = [:],
        _ body: (TestEnvironment) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try KeyRing.generateKey(.es256, in: folder.appendingPathComponent("keys"))
        let yaml = """
            server: { host: 127.0.0.1, port: 8080, public_url: "http://fieldpass.test" }
            storage: { sqlite_path: "\(folder.path)/fieldpass.sqlite" }
            tokens: { keys_dir: "\(folder.path)/keys" }
            environments:
              - id: dev
                email_domains: [example.com]
                idp:
                  issuer: "\(issuer)"
                  client_id: fieldpass
                  client_secret_env: TEST_IDP_SECRET
            """
        let configuration = try FieldpassConfiguration.parse(
            yaml: yaml, environment: ["TEST_IDP_SECRET": "test-secret"].merging(extraEnvironment) { $1 }
        )
        let environment = TestEnvironment(
            folder: folder, configuration: configuration,
            store: try SQLiteStore(path: configuration.storage.sqlitePath)
        )
        return try await body(environment)
    }

    /// The service, built exactly as `fieldpass serve` builds it.
    func application() async throws -> some ApplicationProtocol {
        try await buildApplication(configuration: configuration, store: store, logger: Logger(label: "test"))
    }

    /// Row counts of every table, to prove that a rejected request stored nothing.
    func rowCounts() async throws -> [String: Int] {
        try await store.pool.read { db in
            var counts: [String: Int] = [:]
            for table in ["users", "realms", "devices", "sessions", "session_events", "refresh_tokens"] {
                counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1
            }
            return counts
        }
    }

    /// A registration straight into the store, as `register_device` makes it.
    func register(email: String = "alice@example.com", expiresIn: TimeInterval = 600) async throws -> (OnboardingSession, state: String) {
        let state = try Crypto.randomToken()
        let session = try await store.registerDevice(
            DeviceRegistration(
                email: email, environmentID: "dev", deviceName: "Pixel", platform: "android",
                sessionID: try Crypto.randomToken(), state: state, nonce: try Crypto.randomToken(),
                codeVerifier: try Crypto.randomToken(), now: Date(), expiresAt: Date().addingTimeInterval(expiresIn)
            )
        )
        return (session, state)
    }
}
