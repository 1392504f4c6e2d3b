public import FieldpassDomain
public import ServiceLifecycle

/// A store made by ``StoreFactory``, with what must run beside it while it is in use
/// (PostgreSQL's connection pool and its notification listener; nothing for SQLite).
public struct OpenedStore: Sendable {
    public let store: any FieldpassStore
    /// Put these first in the server's service group, so they stop last.
    public let services: [any Service]
    /// What only a server runs beside them: PostgreSQL's notification listener, which keeps
    /// a connection and sends heartbeats. A command that uses the store and exits needs
    /// neither; what it writes reaches the servers through its own notifications.
    public let serverServices: [any Service]

    public init(store: any FieldpassStore, services: [any Service] = [], serverServices: [any Service] = []) {
        self.store = store
        self.services = services
        self.serverServices = serverServices
    }

    /// Runs `body` while the services (not the server's) run: for commands that use the store and exit.
    public func use<T: Sendable>(_ body: @Sendable (any FieldpassStore) async throws -> T) async throws -> T {
        try await Self.running(services) { try await body(store) }
    }

    /// Runs `body` while `services` run, then cancels them.
    static func running<T: Sendable>(_ services: [any Service], _ body: @Sendable () async throws -> T) async throws -> T {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for service in services {
                group.addTask { try await service.run() }
            }
            defer { group.cancelAll() }
            return try await body()
        }
    }
}
