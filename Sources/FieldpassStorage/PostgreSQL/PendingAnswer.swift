import Synchronization

/// A caller waiting for an operation on PostgreSQL that may never resume: it is answered by
/// the operation's end, its own cancellation or its ``AnswerDeadline``, whichever comes first.
///
/// PostgresNIO writes each statement to its connection's channel with no write promise. When
/// the server ends a connection (a restart, `pg_terminate_backend`, a failover) just after
/// the pool handed it out, a statement that reaches the channel after NIO removed its
/// handlers is dropped, and the caller's `await` waits on a promise that nothing fulfils.
/// Cancelling it does not help. So the operation runs in a task of its own, cancelled when
/// the caller stops waiting, and the caller is answered at once: an operation that did
/// finish has already freed its connection; one that was lost holds only its own memory,
/// since the pool has already counted its connection closed.
final class PendingAnswer<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T?, any Error>?
        var task: Task<Void, Never>?
        var ended = false
    }
    private let state = Mutex(State())
    let deadline: AnswerDeadline

    init(deadline: AnswerDeadline) {
        self.deadline = deadline
    }

    /// Runs `operation` for `continuation`, unless the caller was answered already.
    func start(_ continuation: CheckedContinuation<T?, any Error>, _ operation: @escaping @Sendable () async throws -> T) {
        let endedAlready = state.withLock { state in
            state.continuation = continuation
            return state.ended
        }
        guard !endedAlready else { return continuation.resume(throwing: CancellationError()) }
        // Task-local values (the transaction's lifecycle writes) are inherited.
        let task = Task {
            let result: Result<T?, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            self.end(with: result)
        }
        let cancelled = state.withLock { state in
            state.task = task
            return state.ended
        }
        if cancelled { task.cancel() }
    }

    /// Answers the caller with `result`, if nothing answered it before, and cancels the
    /// operation if it still runs.
    func end(with result: Result<T?, any Error>) {
        let (continuation, task) = state.withLock { state in
            state.ended = true
            defer { state.continuation = nil }
            return (state.continuation, state.task)
        }
        task?.cancel()
        continuation?.resume(with: result)
    }
}

extension PendingAnswer: DeadlineWatch.Waiter {
    func deadlinePassed() {
        end(with: .success(nil))
    }
}
