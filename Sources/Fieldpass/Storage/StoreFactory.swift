public import Logging
import PostgresNIO

/// The one place that names a concrete store: the server and every command get theirs here.
public enum StoreFactory {
    /// The configured store. Nothing is migrated here; see ``migrate(_:logger:)``.
    public static func open(_ settings: StorageSettings, logger: Logger) throws -> OpenedStore {
        switch settings.driver {
        case .sqlite:
            return OpenedStore(store: try SQLiteStore(path: settings.sqlitePath))
        case .postgres:
            let postgres = try requirePostgres(settings)
            let client = PostgresClient(configuration: clientConfiguration(postgres), backgroundLogger: quiet(logger))
            let listener = PostgresChangeListener(client: client, logger: logger)
            let store = PostgresStore(client: client, listener: listener, timeout: .seconds(postgres.timeout))
            return OpenedStore(store: store, services: [client, listener])
        }
    }

    /// Applies the schema migrations not applied yet: once, before the server listens, and by
    /// `fieldpass migrate`. Several instances starting at once take turns.
    public static func migrate(_ settings: StorageSettings, logger: Logger) async throws {
        switch settings.driver {
        case .sqlite:
            try SQLiteStore(path: settings.sqlitePath).migrate()
        case .postgres:
            try await withShortLivedClient(try requirePostgres(settings), logger: logger) { client in
                try await PostgresSchema.migrate(client, logger: quiet(logger))
            }
        }
    }

    /// The migrations not applied yet; commands refuse to run on a database that has any.
    public static func pendingMigrations(_ settings: StorageSettings, logger: Logger) async throws -> [String] {
        switch settings.driver {
        case .sqlite:
            return try SQLiteStore(path: settings.sqlitePath).pendingMigrations()
        case .postgres:
            return try await withShortLivedClient(try requirePostgres(settings), logger: logger) { client in
                try await PostgresSchema.pending(client, logger: quiet(logger))
            }
        }
    }

    private static func requirePostgres(_ settings: StorageSettings) throws -> PostgresSettings {
        guard let postgres = settings.postgres else { throw ConfigurationError(key: "storage.postgres.url", "is required") }
        return postgres
    }

    private static func clientConfiguration(_ settings: PostgresSettings) -> PostgresClient.Configuration {
        var configuration = PostgresClient.Configuration(
            host: settings.host, port: settings.port, username: settings.username,
            password: settings.password, database: settings.database, tls: .disable
        )
        configuration.options.maximumConnections = settings.maxConnections
        configuration.options.connectTimeout = .seconds(settings.timeout)
        return configuration
    }

    private static func withShortLivedClient<T: Sendable>(
        _ settings: PostgresSettings, logger: Logger, _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: clientConfiguration(settings), backgroundLogger: quiet(logger))
        return try await OpenedStore.running([client]) { try await body(client) }
    }

    /// The pool logs connection attempts at debug and above; keep only its errors.
    private static func quiet(_ logger: Logger) -> Logger {
        var logger = logger
        logger.logLevel = max(logger.logLevel, .error)
        return logger
    }
}
