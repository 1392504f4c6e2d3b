import Foundation
import Logging
import PostgresNIO

/// A new, empty database on the PostgreSQL server that `make test` starts, dropped afterwards.
///
/// The server is named by `FIELDPASS_TEST_POSTGRES_URL` (`postgres://user@host:port/postgres`)
/// and its password by `FIELDPASS_TEST_POSTGRES_PASSWORD`. Without them the PostgreSQL
/// cases fail, saying so: they are never skipped.
public enum PostgresTestDatabase {
    /// A database of the test server.
    public struct Location: Sendable {
        public var host: String
        public var port: Int
        public var user: String
        public var password: String?
        public var database: String
    }

    /// Why a PostgreSQL case cannot run.
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String { "\(urlVariable) is not set: run `make check` or `make test`, which start a throw-away PostgreSQL" }
    }

    private static let passwordVariable = "FIELDPASS_TEST_POSTGRES_PASSWORD"
    private static let urlVariable = "FIELDPASS_TEST_POSTGRES_URL"

    /// Runs `body` with a fresh database, migrated already: a copy of ``MigratedTemplate``.
    public static func with<T: Sendable>(_ body: (Location) async throws -> T) async throws -> T {
        let environment = ProcessInfo.processInfo.environment
        guard let url = environment[urlVariable].flatMap(URLComponents.init(string:)),
            let host = url.host, let user = url.user
        else { throw NotConfigured() }
        let port = url.port ?? 5432
        let name = "fieldpass_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        let configuration = PostgresConnection.Configuration(
            host: host, port: port, username: user, password: environment[passwordVariable], database: "postgres", tls: .disable
        )
        let logger = Logger(label: "test.postgres")
        let server = Location(host: host, port: port, user: user, password: environment[passwordVariable], database: "postgres")
        let template = try await MigratedTemplate.shared.name(on: server, logger: logger)
        let admin = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            try await admin.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(template)"), logger: logger)
        } catch {
            // A connection must be closed before it goes (PostgresNIO asserts it).
            try? await admin.close()
            throw error
        }
        do {
            var database = server
            database.database = name
            let result = try await body(database)
            try await drop(name, on: admin, logger: logger)
            return result
        } catch {
            try? await drop(name, on: admin, logger: logger)
            throw error
        }
    }

    private static func drop(_ name: String, on admin: PostgresConnection, logger: Logger) async throws {
        do {
            try await admin.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
        } catch {
            try? await admin.close()
            throw error
        }
        try await admin.close()
    }
}
