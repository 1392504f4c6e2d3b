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
        /// How the caller was answered, once it was.
        var ending: Result<T?, any Error>?
    }
    private let state = Mutex(State())
    let deadline: AnswerDeadline

    init(deadline: AnswerDeadline) {
        self.deadline = deadline
    }

    /// Runs `operation` for `continuation`; a caller that was cancelled, or whose deadline
    /// passed, before this is answered so at once, and nothing runs.
    func start(_ continuation: CheckedContinuation<T?, any Error>, _ operation: @escaping @Sendable () async throws -> T) {
        let endedBefore = state.withLock { state in
            if state.ending == nil { state.continuation = continuation }
            return state.ending
        }
        if let endedBefore { return continuation.resume(with: endedBefore) }
        // Task-local values (the transaction's lifecycle writes) are inherited.
        let task = Task {
            let result: Result<T?, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            self.end(with: result)
        }
        let endedMeanwhile = state.withLock { state in
            state.task = task
            return state.ending != nil
        }
        if endedMeanwhile { task.cancel() }
    }

    /// Answers the caller with `result`, if nothing answered it before, and cancels the
    /// operation if it still runs.
    func end(with result: Result<T?, any Error>) {
        let (continuation, task) = state.withLock { state in
            if state.ending == nil { state.ending = result }
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
