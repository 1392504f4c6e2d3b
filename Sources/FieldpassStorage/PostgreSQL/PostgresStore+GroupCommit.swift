import PostgresNIO

/// One caller's change, waiting for a shared PostgreSQL transaction.
struct PostgresChange: GroupedChange {
    /// Applies the change in its own savepoint; returns how to answer its caller after the
    /// commit. Throws only what must abort the whole transaction (a lost connection, a
    /// deadlock), which is then run again or fails every change in it.
    let apply: @Sendable (PostgresConnection) async throws -> @Sendable () -> Void
    let abandon: @Sendable (any Error) -> Void
    /// The feed to publish once the transaction committed, if the change writes to one.
    let publishes: PostgresFeed?
}

extension PostgresStore {
    /// Runs `body` as one change of the next shared write transaction (see ``GroupCommit``).
    /// Returns after that transaction committed; a `body` that throws is rolled back alone.
    /// A change that may write to a feed names it in `publishing`.
    func writeGrouped<T: Sendable>(
        publishing feed: PostgresFeed? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let change = PostgresChange(
                apply: { connection in
                    try await connection.execute("SAVEPOINT grouped_change")
                    do {
                        let value = try await body(connection)
                        try await connection.execute("RELEASE SAVEPOINT grouped_change")
                        return { continuation.resume(returning: value) }
                    } catch let error as PSQLError where Self.abortsTransaction(error) {
                        throw error
                    } catch {
                        try await connection.execute("ROLLBACK TO SAVEPOINT grouped_change")
                        return { continuation.resume(throwing: error) }
                    }
                },
                abandon: { continuation.resume(throwing: $0) },
                publishes: feed
            )
            // One transaction for the batch, run again whole after a deadlock. Each change
            // has the store's timeout for its answers, not the batch for all of them.
            groupCommit.submit(change) { [timeout] batch in
                let deadline = AnswerDeadline(timeout: timeout)
                let answers = try await write(deadline: deadline) { connection in
                    var answers: [@Sendable () -> Void] = []
                    for change in batch {
                        answers.append(try await change.apply(connection))
                        deadline.answered()
                    }
                    return answers
                }
                for feed in Set(batch.compactMap(\.publishes)) { publish(feed) }
                return answers
            }
        }
    }

    /// Errors after which the transaction cannot go on: a lost connection, or PostgreSQL
    /// breaking a deadlock or a serialization conflict (``write(_:)`` runs those again).
    private static func abortsTransaction(_ error: PSQLError) -> Bool {
        isUnavailability(error) || isRetryable(error)
    }
}
