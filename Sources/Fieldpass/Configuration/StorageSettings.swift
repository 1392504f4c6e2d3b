import Foundation

/// Where state lives.
///
/// Keys: `storage.driver` (`sqlite`, the default, or `postgres`); `storage.sqlite_path`
/// (default `data/fieldpass.sqlite`; the folder is created); for PostgreSQL
/// `storage.postgres.url` (`postgres://user@host:port/database`, no password),
/// `storage.postgres.password_env` (the environment variable that holds the password, if
/// the server wants one), `storage.postgres.max_connections` (default 20) and
/// `storage.postgres.timeout` (seconds an operation waits for the database before the
/// request gets 503 `store_unavailable`, default 5), `storage.postgres.tls` and
/// `storage.postgres.ca_file` (see ``PostgresTLS``).
public struct StorageSettings: Sendable {
    /// Which store keeps the state.
    public enum Driver: String, Sendable {
        case sqlite
        case postgres
    }

    public var driver: Driver
    /// Path of the SQLite database file.
    public var sqlitePath: String
    /// The PostgreSQL server, when `driver` is `postgres`.
    public var postgres: PostgresSettings?

    init(_ settings: SettingsReader, environment: [String: String]) throws(ConfigurationError) {
        let name = try settings.string(["storage", "driver"], default: Driver.sqlite.rawValue)
        guard let driver = Driver(rawValue: name) else {
            throw ConfigurationError(key: "storage.driver", "must be sqlite or postgres, not '\(name)'")
        }
        self.driver = driver
        sqlitePath = try settings.string(["storage", "sqlite_path"], default: "data/fieldpass.sqlite")
        postgres = driver == .postgres ? try PostgresSettings(settings, environment: environment) : nil
    }
}

/// How to reach PostgreSQL. The password comes only from the environment.
public struct PostgresSettings: Sendable {
    public var host: String
    public var port: Int
    public var database: String
    public var username: String
    public var password: String?
    public var maxConnections: Int
    /// Seconds one operation may wait for the database.
    public var timeout: Int
    /// Whether and how the connection is encrypted and the server verified.
    public var tls: PostgresTLS

    init(_ settings: SettingsReader, environment: [String: String]) throws(ConfigurationError) {
        let key = ["storage", "postgres", "url"]
        let text = try settings.string(key)
        guard let url = URLComponents(string: text), url.scheme == "postgres" || url.scheme == "postgresql",
            let host = url.host, !host.isEmpty, let user = url.user, !user.isEmpty,
            url.path.count > 1, url.query == nil
        else {
            throw ConfigurationError(key: settings.dotted(key), "must look like postgres://user@host:5432/database")
        }
        guard url.password == nil else {
            throw ConfigurationError(
                key: settings.dotted(key), "must not contain a password; name its environment variable in storage.postgres.password_env"
            )
        }
        self.host = host
        port = url.port ?? 5432
        database = String(url.path.dropFirst())
        username = user
        if let variable = try settings.optionalString(["storage", "postgres", "password_env"]) {
            guard let value = environment[variable], !value.isEmpty else {
                throw ConfigurationError(key: "storage.postgres.password_env", "set the environment variable \(variable)")
            }
            password = value
        }
        maxConnections = try settings.int(["storage", "postgres", "max_connections"], default: 20, in: 2...1000)
        timeout = try settings.int(["storage", "postgres", "timeout"], default: 5, in: 1...300)
        tls = try PostgresTLS(settings, host: host)
    }
}
