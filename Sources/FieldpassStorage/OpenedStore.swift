public import FieldpassDomain
public import ServiceLifecycle

/// A store made by ``StoreFactory``, with what must run beside it while it is in use
/// (its ``BackgroundWork``, and PostgreSQL's connection pool and notification listener).
public struct OpenedStore: Sendable {
    public let store: any FieldpassStore
    /// Put these first in the server's service group, so they stop last.
    public let services: [any Service]
    /// What only a server runs beside them: what turns other processes' changes into its
    /// signals (PostgreSQL's notification listener, which keeps a connection and sends
    /// heartbeats; SQLite's ``SQLiteChangeWatcher``). A command that uses the store and exits
    /// needs neither; the servers hear of what it writes.
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

    /// Runs `body` while `services` run, then stops them last to first, each before the one
    /// before it: the work a store started finishes while the pool it needs still runs.
    /// ``BackgroundWork`` is let finish, so that what a command started (announcing its
    /// changes to the servers) is done before it exits; the rest are cancelled.
    static func running<T: Sendable>(_ services: [any Service], _ body: @Sendable () async throws -> T) async throws -> T {
        guard let first = services.first else { return try await body() }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await first.run() }
            defer { group.cancelAll() }
            let value = try await running(Array(services.dropFirst()), body)
            if let work = first as? BackgroundWork {
                work.finish()
                try await group.next()
            }
            return value
        }
    }
}
