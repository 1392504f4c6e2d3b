import GRDB
public import ServiceLifecycle

/// Turns what other processes commit to the SQLite file (the CLI, another server on the same
/// file) into this process's change signals, as PostgreSQL's notifications do for its
/// instances; the store signals its own writes itself.
///
/// Every ``interval`` it asks the store's writer connection for `PRAGMA data_version`, which
/// moves only when another connection commits: a look at shared memory, no read of the
/// database. So readers (long-polls, the event hub) can wait for signals alone, with a
/// safety net of seconds, however many of them wait.
public struct SQLiteChangeWatcher: Service {
    /// How soon a change of another process wakes this one's readers.
    static let interval = Duration.milliseconds(50)
    let store: SQLiteStore

    /// Watches until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var seen: Int?
            while !Task.isCancelled {
                // A failed look is made again at the next; a store that stays unavailable
                // answers its readers itself.
                if let version = try? await store.pool.writeWithoutTransaction({ try Int.fetchOne($0, sql: "PRAGMA data_version") }) {
                    if let seen, version != seen { store.signalAll() }
                    seen = version
                }
                try? await Task.sleep(for: Self.interval)
            }
        }
    }
}
