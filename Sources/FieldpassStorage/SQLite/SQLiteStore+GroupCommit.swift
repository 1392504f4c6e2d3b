import FieldpassDomain
import GRDB

/// One caller's change, waiting for a shared SQLite transaction.
struct SQLiteChange: GroupedChange {
    /// Applies the change in its own savepoint; returns how to answer its caller after the commit.
    let apply: @Sendable (Database) -> @Sendable () -> Void
    let abandon: @Sendable (any Error) -> Void
}

extension SQLiteStore {
    /// Runs `body` as one change of the next shared write transaction (see ``GroupCommit``).
    /// Returns after that transaction committed; a `body` that throws is rolled back alone.
    func writeGrouped<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let change = SQLiteChange(
                apply: { db in
                    do {
                        var value: T?
                        try db.inSavepoint {
                            value = try body(db)
                            return .commit
                        }
                        guard let value else { throw DatabaseError(message: "change produced no result") }
                        return { continuation.resume(returning: value) }
                    } catch {
                        // Classified here too: this error reaches its caller without passing `write`.
                        let failure = StoreUnavailable(classifying: error) ?? error
                        return { continuation.resume(throwing: failure) }
                    }
                },
                abandon: { continuation.resume(throwing: $0) }
            )
            groupCommit.submit(change) { batch in try await write { db in batch.map { $0.apply(db) } } }
        }
    }
}
