import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Logging
import Prometheus
import Testing
import Tokens
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// The service's parts for router tests: a temporary folder with a signing key, a migrated
/// SQLite store and a configuration; all removed afterwards. (The store suites, on both
/// stores, are in `FieldpassStorageTests`.)
struct TestEnvironment {
    /// The bearer token of `dev`'s SCIM endpoint.
    static let scimToken = "dev-scim-token-of-at-least-32-characters"

    let folder: URL
    let configuration: FieldpassConfiguration
    let store: any FieldpassStore

    /// Builds the environment, runs `body` with the store's services running, and always
    /// removes the folder (and the database).
    static func with<T: Sendable>(
        issuer: String = "http://127.0.0.1:9", extraEnvironment: [String: String] = [:],
        _ body: @Sendable (TestEnvironment) async throws -> T
    ) async throws -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        _ = try KeyRing.generateKey(.es256, in: folder.appendingPathComponent("keys"))
        return try await with(
            folder: folder, storage: #"{ sqlite_path: "\#(folder.path)/fieldpass.sqlite" }"#, issuer: issuer,
            extraEnvironment: extraEnvironment, body)
    }

    private static func with<T: Sendable>(
        folder: URL, storage: String, issuer: String, extraEnvironment: [String: String],
        _ body: @Sendable (TestEnvironment) async throws -> T
    ) async throws -> T {
        let yaml = """
            server: { host: 127.0.0.1, port: 8080, public_url: "http://fieldpass.test" }
            storage: \(storage)
            tokens: { keys_dir: "\(folder.path)/keys" }
            environments:
              - id: dev
                email_domains: [example.com]
                bootstrap_admins: [boss@example.com]
                service_accounts:
                  - id: backend
                    secret_env: TEST_BACKEND_SECRET
                scim: { token_env: TEST_SCIM_TOKEN }
                idp:
                  issuer: "\(issuer)"
                  client_id: fieldpass
                  client_secret_env: TEST_IDP_SECRET
              - id: other
                email_domains: [other.test]
                service_accounts:
                  - id: other-backend
                    secret_env: TEST_OTHER_BACKEND_SECRET
                idp:
                  issuer: "\(issuer)"
                  client_id: fieldpass
                  client_secret_env: TEST_IDP_SECRET
            """
        let secrets = [
            "TEST_IDP_SECRET": "test-secret", "TEST_BACKEND_SECRET": "backend-secret-of-at-least-32-characters",
            "TEST_OTHER_BACKEND_SECRET": "other-secret-of-at-least-32-characters", "TEST_SCIM_TOKEN": scimToken,
        ]
        let configuration = try FieldpassConfiguration.parse(yaml: yaml, environment: secrets.merging(extraEnvironment) { $1 })
        let logger = Logger(label: "test")
        try await StoreFactory.migrate(configuration.storage, logger: logger)
        let opened = try StoreFactory.open(configuration.storage, realmPrefixes: configuration.realmPrefixes, logger: logger)
        return try await opened.use { store in
            try await body(TestEnvironment(folder: folder, configuration: configuration, store: store))
        }
    }

    /// The service, built exactly as `fieldpass serve` builds it (on the SQLite store).
    func application() async throws -> some ApplicationProtocol {
        try await buildApplication(configuration: configuration, store: OpenedStore(store: store), logger: Logger(label: "test"))
    }

    /// The service's router alone, built as ``application()`` builds it, for its route table.
    func router() throws -> Router<AppRequestContext> {
        let logger = Logger(label: "test")
        return buildRouter(
            ServiceParts(
                configuration: configuration, store: store,
                keys: try KeyRotation(settings: configuration.tokens, issuer: configuration.server.publicURL, logger: logger),
                hub: SessionEventHub(store: store, logger: logger), readiness: Readiness(), metrics: PrometheusCollectorRegistry()
            ))
    }

    /// Row counts of every table, to prove that a rejected request stored nothing (SQLite).
    func rowCounts() async throws -> [String: Int] {
        let store = try #require(store as? SQLiteStore)
        return try await store.pool.read { db in
            var counts: [String: Int] = [:]
            let tables = [
                "users", "realms", "devices", "sessions", "session_events", "refresh_tokens",
                "teams", "team_members", "realm_grants", "audit_log", "lifecycle_events", "scim_users", "scim_groups", "scim_group_members",
                "console_signins", "console_sessions", "onboarding_outcomes",
            ]
            for table in tables {
                counts[table] = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table)") ?? -1
            }
            return counts
        }
    }

    /// An access token for a person with `role`, minted with the server's own key.
    func person(_ email: String, role: Role, environmentID: String = "dev") async throws -> (UserRecord, token: String) {
        let user = try await store.ensureUser(email: email, environmentID: environmentID, now: Date())
        let updated = try await store.setRole(role, userID: user.id, by: .cli(environmentID: environmentID), managed: .none, now: Date())
        let facts = try #require(try await store.accessFacts(userID: user.id, environmentID: environmentID))
        return (updated, try issuer().deviceAccessToken(facts: facts, deviceID: "device", now: Date()).token)
    }

    /// A service account's access token, minted with the server's own key.
    func serviceToken(_ accountID: String = "backend", environmentID: String = "dev") throws -> String {
        try issuer().serviceAccessToken(accountID: accountID, environmentID: environmentID, now: Date())
    }

    private func issuer() throws -> TokenIssuer {
        TokenIssuer(
            keys: try KeyRotation(settings: configuration.tokens, issuer: configuration.server.publicURL, logger: Logger(label: "test")),
            issuer: configuration.server.publicURL, settings: configuration.tokens,
            policy: RealmPolicy(roles: configuration.roles, prefixes: configuration.realmPrefixes)
        )
    }

    /// A registration straight into the store, as `register_device` makes it.
    func register(email: String = "alice@example.com", expiresIn: TimeInterval = 600) async throws -> (OnboardingSession, state: String) {
        try await store.register(email: email, expiresIn: expiresIn)
    }
}
