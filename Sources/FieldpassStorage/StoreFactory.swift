public import FieldpassDomain
public import Logging
import PostgresNIO

/// The one place that names a concrete store: the server and every command get theirs here.
public enum StoreFactory {
    /// The configured store, presenting realm paths in its events with `realmPrefixes`.
    /// Nothing is migrated here; see ``migrate(_:logger:)``.
    public static func open(_ settings: StorageSettings, realmPrefixes: RealmPrefixes, logger: Logger) throws -> OpenedStore {
        switch settings.driver {
        case .sqlite:
            let store = try SQLiteStore(path: settings.sqlitePath, realmPrefixes: realmPrefixes)
            return OpenedStore(store: store, services: [store.groupCommit.work], serverServices: [SQLiteChangeWatcher(store: store)])
        case .postgres:
            let endpoint = try postgresEndpoint(settings)
            let client = PostgresClient(configuration: endpoint.clientConfiguration, backgroundLogger: quiet(logger))
            let listener = PostgresChangeListener(client: client, logger: logger)
            let store = PostgresStore(
                client: client, listener: listener, timeout: .seconds(endpoint.settings.timeout), realmPrefixes: realmPrefixes
            )
            // The pool first, so it stops after the work that needs it.
            return OpenedStore(store: store, services: [client, store.groupCommit.work, store.publisher.work], serverServices: [listener])
        }
    }

    /// Applies the schema migrations not applied yet: once, before the server listens, and by
    /// `fieldpass migrate`. Several instances starting at once take turns.
    public static func migrate(_ settings: StorageSettings, logger: Logger) async throws {
        switch settings.driver {
        case .sqlite:
            try SQLiteStore(path: settings.sqlitePath).migrate()
        case .postgres:
            try await postgresEndpoint(settings).withConnection(logger: quiet(logger)) { connection in
                try await PostgresSchema.migrate(connection, logger: quiet(logger))
            }
        }
    }

    /// The migrations not applied yet; commands refuse to run on a database that has any.
    public static func pendingMigrations(_ settings: StorageSettings, logger: Logger) async throws -> [String] {
        switch settings.driver {
        case .sqlite:
            return try SQLiteStore(path: settings.sqlitePath).pendingMigrations()
        case .postgres:
            return try await postgresEndpoint(settings).withConnection(logger: quiet(logger)) { connection in
                try await PostgresSchema.pending(connection, logger: quiet(logger))
            }
        }
    }

    private static func postgresEndpoint(_ settings: StorageSettings) throws -> PostgresEndpoint {
        guard let postgres = settings.postgres else { throw ConfigurationError(key: "storage.postgres.url", "is required") }
        return PostgresEndpoint(settings: postgres)
    }

    /// The pool logs connection attempts at debug and above; keep only its errors.
    private static func quiet(_ logger: Logger) -> Logger {
        var logger = logger
        logger.logLevel = max(logger.logLevel, .error)
        return logger
    }
}
