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

    package init(driver: Driver, sqlitePath: String, postgres: PostgresSettings?) {
        self.driver = driver
        self.sqlitePath = sqlitePath
        self.postgres = postgres
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

    package init(
        host: String, port: Int, database: String, username: String, password: String?, maxConnections: Int, timeout: Int,
        tls: PostgresTLS
    ) {
        self.host = host
        self.port = port
        self.database = database
        self.username = username
        self.password = password
        self.maxConnections = maxConnections
        self.timeout = timeout
        self.tls = tls
    }
}
