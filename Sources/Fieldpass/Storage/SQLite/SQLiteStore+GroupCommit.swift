import GRDB

/// One caller's change, waiting for a shared SQLite transaction.
struct SQLiteChange: Sendable {
    /// Applies the change in its own savepoint; returns how to answer its caller after the commit.
    let apply: @Sendable (Database) -> @Sendable () -> Void
    /// Answers the caller when the shared transaction did not commit: nothing was stored.
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
                        return { continuation.resume(throwing: error) }
                    }
                },
                abandon: { continuation.resume(throwing: $0) }
            )
            groupCommit.submit(change) { [pool] batch in await Self.commit(batch, in: pool) }
        }
    }

    /// Applies `batch` in one immediate transaction, then answers every caller.
    private static func commit(_ batch: [SQLiteChange], in pool: DatabasePool) async {
        do {
            let answers = try await pool.writeWithoutTransaction { db in
                var answers: [@Sendable () -> Void] = []
                try db.inTransaction(.immediate) {
                    answers = batch.map { $0.apply(db) }
                    return .commit
                }
                return answers
            }
            for answer in answers { answer() }
        } catch {
            for change in batch { change.abandon(error) }
        }
    }
}
