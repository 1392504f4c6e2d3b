import PostgresNIO

/// One caller's change, waiting for a shared PostgreSQL transaction.
struct PostgresChange: GroupedChange {
    /// Applies the change, in a savepoint of its own when `inSavepoint`, and returns how to
    /// answer its caller after the commit.
    ///
    /// In a savepoint, a change that fails is rolled back alone and answered with its error.
    /// Without one, its error is thrown as ``FailedChange``: the transaction is then spoilt and
    /// must be rolled back. Errors that abort the whole transaction (a lost connection, a
    /// deadlock) are thrown as they are, and the transaction is run again or fails every change.
    let apply: @Sendable (PostgresConnection, _ inSavepoint: Bool) async throws -> AppliedChange
    let abandon: @Sendable (any Error) -> Void
    /// The feed to publish once the transaction committed, if the change writes to one.
    let publishes: PostgresFeed?
}

/// A change applied in a shared transaction: how to answer its caller after the commit.
struct AppliedChange: Sendable {
    let answer: @Sendable () -> Void
    /// It was rolled back to its savepoint; `answer` gives its error.
    let failed: Bool
}

/// A change, applied without a savepoint, failed with `error`.
struct FailedChange: Error {
    let error: any Error
}

extension PostgresChange {
    /// `body` as a change, whose caller `answer` gives its value or its error once the
    /// transaction committed (or `abandon`, its error when it did not).
    init<T: Sendable>(
        publishing feed: PostgresFeed?, _ body: @escaping @Sendable (PostgresConnection) async throws -> T,
        answer: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        apply = { connection, inSavepoint in
            if inSavepoint { try await connection.execute("SAVEPOINT grouped_change") }
            do {
                let value = try await body(connection)
                if inSavepoint { try await connection.execute("RELEASE SAVEPOINT grouped_change") }
                return AppliedChange(answer: { answer(.success(value)) }, failed: false)
            } catch let error as PSQLError where PostgresStore.abortsTransaction(error) {
                throw error
            } catch {
                guard inSavepoint else { throw FailedChange(error: error) }
                try await connection.execute("ROLLBACK TO SAVEPOINT grouped_change")
                return AppliedChange(answer: { answer(.failure(error)) }, failed: true)
            }
        }
        abandon = { answer(.failure($0)) }
        publishes = feed
    }
}

extension PostgresStore {
    /// Runs `body` as one change of the next shared write transaction (see ``GroupCommit``).
    /// Returns after that transaction committed; a `body` that throws is rolled back alone.
    /// A change that may write to a feed names it in `publishing`.
    func writeGrouped<T: Sendable>(
        publishing feed: PostgresFeed? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let change = PostgresChange(publishing: feed, body) { continuation.resume(with: $0) }
            groupCommit.submit(change) { batch in try await commit(batch) }
        }
    }

    /// Applies `batch` in one transaction, run again whole after a deadlock, and publishes the
    /// feeds its changes wrote to. Each change has the store's timeout for its answers, not
    /// the batch for all of them.
    ///
    /// A savepoint costs a change two round trips (`SAVEPOINT`, `RELEASE`), yet nearly every
    /// change is stored: a batch runs without them, and when one of its changes fails it is
    /// rolled back and run again with them. A batch of one needs none: its transaction is its
    /// savepoint. Changes that fail on purpose (a replayed DPoP proof) could make every batch
    /// run twice, so after a batch with a failure the next ones take savepoints from the start
    /// (``SavepointPolicy``).
    func commit(_ batch: [PostgresChange]) async throws -> [@Sendable () -> Void] {
        let shared = batch.count > 1
        var applied: [AppliedChange]
        do {
            applied = try await apply(batch, inSavepoints: shared && savepoints.startWithSavepoints)
        } catch let failed as FailedChange {
            guard shared else { throw failed.error }
            applied = try await apply(batch, inSavepoints: true)
        }
        if shared { savepoints.batchEnded(withFailure: applied.contains(where: \.failed)) }
        for feed in Set(batch.compactMap(\.publishes)) { publish(feed) }
        return applied.map(\.answer)
    }

    private func apply(_ batch: [PostgresChange], inSavepoints: Bool) async throws -> [AppliedChange] {
        let deadline = AnswerDeadline(timeout: timeout)
        return try await write(deadline: deadline) { connection in
            var applied: [AppliedChange] = []
            for change in batch {
                applied.append(try await change.apply(connection, inSavepoints))
                deadline.answered()
            }
            return applied
        }
    }

    /// Errors after which the transaction cannot go on: a lost connection, or PostgreSQL
    /// breaking a deadlock or a serialization conflict (``write(_:)`` runs those again).
    fileprivate static func abortsTransaction(_ error: PSQLError) -> Bool {
        isUnavailability(error) || isRetryable(error)
    }
}
