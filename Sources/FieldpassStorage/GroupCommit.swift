import FieldpassDomain
import Synchronization

/// A change waiting for a shared transaction, as a store defines it.
protocol GroupedChange: Sendable {
    /// Answers the caller when the shared transaction did not commit: nothing was stored.
    var abandon: @Sendable (any Error) -> Void { get }
}

/// Group commit: changes that arrive while a transaction is committing wait, and the next
/// transaction applies all of them together.
///
/// A burst of registrations then costs one `BEGIN`/`COMMIT` (one WAL sync) instead of one
/// each. Every caller is answered only after the transaction
/// that holds its change has committed ("stored before answered"), and a change that fails
/// is rolled back and fails alone: SQLite runs each in a savepoint of its own, PostgreSQL
/// runs a batch again in savepoints when one of its changes failed (``SavepointPolicy``).
final class GroupCommit<Change: GroupedChange>: Sendable {
    /// Applies `changes` in one transaction and returns, for each, how to answer its caller
    /// once that transaction has committed. Throws when it did not commit.
    typealias Commit = @Sendable ([Change]) async throws -> [@Sendable () -> Void]

    private struct Queue {
        var waiting: [Change] = []
        var committers = 0
    }

    private let queue = Mutex(Queue())
    /// Where the commit loops run; the store's services hold it.
    let work = BackgroundWork()
    private let maximumBatch: Int
    private let concurrentTransactions: Int

    /// `maximumBatch` bounds one transaction, so that its locks and its answers stay short.
    /// `concurrentTransactions` is how many may be under way at once: one for a store with a
    /// single writer (SQLite), more where commits can overlap (PostgreSQL).
    init(maximumBatch: Int = 128, concurrentTransactions: Int = 1) {
        self.maximumBatch = maximumBatch
        self.concurrentTransactions = concurrentTransactions
    }

    /// Queues `change`. While fewer than `concurrentTransactions` loops run, it starts one
    /// that commits with `commit` until nothing waits; every caller of one store passes the
    /// same function.
    func submit(_ change: Change, commit: @escaping Commit) {
        let startsLoop = queue.withLock { queue in
            queue.waiting.append(change)
            guard queue.committers < concurrentTransactions else { return false }
            queue.committers += 1
            return true
        }
        guard startsLoop, !work.start({ await self.commitWhileWaiting(commit) }) else { return }
        // Shut down: nothing will commit what waits, so its callers are answered now.
        let abandoned = queue.withLock { queue in
            queue.committers -= 1
            defer { queue.waiting = [] }
            return queue.waiting
        }
        for change in abandoned { change.abandon(StoreUnavailable("the store is shutting down")) }
    }

    private func commitWhileWaiting(_ commit: Commit) async {
        while true {
            let batch = queue.withLock { queue -> [Change] in
                let batch = Array(queue.waiting.prefix(maximumBatch))
                queue.waiting.removeFirst(batch.count)
                if batch.isEmpty { queue.committers -= 1 }
                return batch
            }
            guard !batch.isEmpty else { return }
            do {
                for answer in try await commit(batch) { answer() }
            } catch {
                for change in batch { change.abandon(error) }
            }
        }
    }
}
