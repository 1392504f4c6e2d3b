import Foundation
import Logging
import PostgresNIO
import Tokens
import FieldpassStorage

/// The test server's database with every migration applied, from which each test's database
/// is copied (`CREATE DATABASE … TEMPLATE`).
///
/// Migrating a new database per test case ran some seventy statements a case, each a round
/// trip, for a hundred cases at once: on a busy machine that alone outlasted the suites' time
/// limits. A copy is one statement on the server. The template's name is a digest of the
/// migrations, so every test process of one build shares it, and a build with other
/// migrations makes its own; the first process builds it under an advisory lock while the
/// others wait, and marks it a template only once it is complete.
public actor MigratedTemplate {
    public static let shared = MigratedTemplate()

    private var built: Task<String, any Error>?

    /// The template's name, built first if the server lacks it.
    func name(on server: PostgresTestDatabase.Location, logger: Logger) async throws -> String {
        // Claimed before the first suspension: the cases of this process build it once.
        if let built { return try await built.value }
        let building = Task { try await Self.build(on: server, logger: logger) }
        built = building
        do {
            return try await building.value
        } catch {
            built = nil
            throw error
        }
    }

    private static let name: String = {
        let migrations = PostgresSchema.migrations.map { $0.id + "\n" + $0.sql }.joined(separator: "\n\n")
        let digest = Crypto.sha256(Array(migrations.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
        return "fieldpass_template_\(digest)"
    }()

    private static func build(on server: PostgresTestDatabase.Location, logger: Logger) async throws -> String {
        let configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.user, password: server.password, database: server.database,
            tls: .disable
        )
        let admin = try await PostgresConnection.connect(configuration: configuration, id: 2, logger: logger)
        do {
            // Session-level, so that it holds across the migration's own connection.
            try await admin.query("SELECT pg_advisory_lock(hashtext(\(name)))", logger: logger)
            let complete = try await admin.query("SELECT datistemplate FROM pg_database WHERE datname = \(name)", logger: logger)
                .collect().first.map { try $0.decode(Bool.self) }
            if complete != true {
                // A template left half-built by a process that stopped is built again.
                if complete == false {
                    try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name) WITH (FORCE)"), logger: logger)
                }
                try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
                try await migrate(name, on: server, logger: logger)
                try await admin.query(PostgresQuery(unsafeSQL: "ALTER DATABASE \(name) IS_TEMPLATE true"), logger: logger)
            }
            try await admin.query("SELECT pg_advisory_unlock(hashtext(\(name)))", logger: logger)
            try await admin.close()
            return name
        } catch {
            try? await admin.close()
            throw error
        }
    }

    private static func migrate(_ database: String, on server: PostgresTestDatabase.Location, logger: Logger) async throws {
        let settings = PostgresSettings(
            host: server.host, port: server.port, database: database, username: server.user, password: server.password,
            maxConnections: 1, timeout: 300, tls: .disable
        )
        try await StoreFactory.migrate(StorageSettings(driver: .postgres, sqlitePath: "", postgres: settings), logger: logger)
    }
}
