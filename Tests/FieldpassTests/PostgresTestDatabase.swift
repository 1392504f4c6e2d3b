import Foundation
import Logging
import PostgresNIO
import Testing

/// A new, empty database on the PostgreSQL server that `make test` starts, dropped afterwards.
///
/// The server is named by `FIELDPASS_TEST_POSTGRES_URL` (`postgres://user@host:port/postgres`)
/// and its password by `FIELDPASS_TEST_POSTGRES_PASSWORD`. Without them the PostgreSQL
/// cases fail, saying so: they are never skipped.
enum PostgresTestDatabase {
    static let passwordVariable = "FIELDPASS_TEST_POSTGRES_PASSWORD"
    private static let urlVariable = "FIELDPASS_TEST_POSTGRES_URL"

    static var passwordEnvironment: [String: String] {
        [passwordVariable: ProcessInfo.processInfo.environment[passwordVariable] ?? ""]
    }

    /// Runs `body` with the URL of a fresh database.
    static func with<T: Sendable>(_ body: (String) async throws -> T) async throws -> T {
        let environment = ProcessInfo.processInfo.environment
        guard let server = environment[urlVariable].flatMap(URLComponents.init(string:)),
            let host = server.host, let user = server.user
        else {
            Issue.record("\(urlVariable) is not set: run `make test`, which starts a throw-away PostgreSQL")
            throw CancellationError()
        }
        let port = server.port ?? 5432
        let name = "fieldpass_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: environment[passwordVariable], database: "postgres", tls: .disable
        )
        let logger = Logger(label: "test.postgres")
        let admin = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger)
        do {
            let result = try await body("postgres://\(user)@\(host):\(port)/\(name)")
            try await drop(name, on: admin, logger: logger)
            return result
        } catch {
            try? await drop(name, on: admin, logger: logger)
            throw error
        }
    }

    private static func drop(_ name: String, on admin: PostgresConnection, logger: Logger) async throws {
        defer { Task { try? await admin.close() } }
        try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
    }
}
