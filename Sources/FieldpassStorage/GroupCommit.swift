import Synchronization

/// A change waiting for a shared transaction, as a store defines it.
protocol GroupedChange: Sendable {
    /// Answers the caller when the shared transaction did not commit: nothing was stored.
    var abandon: @Sendable (any Error) -> Void { get }
}

/// Group commit: changes that arrive while a transaction is committing wait, and the next
/// transaction applies all of them together.
///
/// A burst of registrations then costs one `BEGIN`/`COMMIT` (one WAL sync, one turn at the
/// feed counter) instead of one each. Every caller is answered only after the transaction
/// that holds its change has committed ("stored before answered"); the stores run each
/// change in a savepoint of its own, so one that fails is rolled back and fails alone.
final class GroupCommit<Change: GroupedChange>: Sendable {
    /// Applies `changes` in one transaction and returns, for each, how to answer its caller
    /// once that transaction has committed. Throws when it did not commit.
    typealias Commit = @Sendable ([Change]) async throws -> [@Sendable () -> Void]

    private struct Queue {
        var waiting: [Change] = []
        var committing = false
    }

    private let queue = Mutex(Queue())
    private let maximumBatch: Int

    /// `maximumBatch` bounds one transaction, so that its locks and its answers stay short.
    init(maximumBatch: Int = 128) {
        self.maximumBatch = maximumBatch
    }

    /// Queues `change`. The first change of an idle queue starts a loop that commits with
    /// `commit` until nothing waits; every caller of one store passes the same function.
    func submit(_ change: Change, commit: @escaping Commit) {
        let startsLoop = queue.withLock { queue in
            queue.waiting.append(change)
            guard !queue.committing else { return false }
            queue.committing = true
            return true
        }
        if startsLoop { Task { await commitWhileWaiting(commit) } }
    }

    private func commitWhileWaiting(_ commit: Commit) async {
        while true {
            let batch = queue.withLock { queue -> [Change] in
                let batch = Array(queue.waiting.prefix(maximumBatch))
                queue.waiting.removeFirst(batch.count)
                if batch.isEmpty { queue.committing = false }
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
