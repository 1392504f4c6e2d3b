import Synchronization

/// Runs an operation that may never resume after it is cancelled, so that its caller can
/// stop waiting for it.
///
/// PostgresNIO writes each statement to its connection's channel with no write promise. When
/// the server ends a connection (a restart, `pg_terminate_backend`, a failover) just after
/// the pool handed it out, a statement that reaches the channel after NIO removed its
/// handlers is dropped, and the caller's `await` waits on a promise that nothing fulfils.
/// Cancelling it does not help, and a task group waits for every child, so a deadline raced
/// in a group would never return. Here the operation runs in a task of its own, cancelled
/// with its caller, and the caller is answered at once: an operation that did finish has
/// already freed its connection; one that was lost holds only its own memory, since the
/// pool has already counted its connection closed.
enum LeftBehindOnCancel {
    /// Returns what `operation` returns, or throws `CancellationError` as soon as the caller
    /// is cancelled, whether or not `operation` has ended.
    static func run<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let waiting = Waiting<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard waiting.start(continuation) else { return }
                // Task-local values (the transaction's lifecycle writes) are inherited.
                waiting.attach(
                    Task {
                        let result: Result<T, any Error>
                        do { result = .success(try await operation()) } catch { result = .failure(error) }
                        waiting.finish(with: result)
                    })
            }
        } onCancel: {
            waiting.cancel()
        }
    }

    /// The caller's continuation, resumed once: by the operation's end or by the caller's
    /// cancellation, whichever comes first.
    private final class Waiting<T: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<T, any Error>?
            var task: Task<Void, Never>?
            var cancelled = false
        }
        private let state = Mutex(State())

        /// False if the caller was cancelled already: then it has been answered, and there
        /// is nothing to run.
        func start(_ continuation: CheckedContinuation<T, any Error>) -> Bool {
            let cancelledAlready = state.withLock { state in
                state.continuation = continuation
                return state.cancelled
            }
            if cancelledAlready { take()?.resume(throwing: CancellationError()) }
            return !cancelledAlready
        }

        func attach(_ task: Task<Void, Never>) {
            let cancelledAlready = state.withLock { state in
                state.task = task
                return state.cancelled
            }
            if cancelledAlready { task.cancel() }
        }

        func finish(with result: Result<T, any Error>) {
            take()?.resume(with: result)
        }

        func cancel() {
            let task = state.withLock { state in
                state.cancelled = true
                return state.task
            }
            task?.cancel()
            take()?.resume(throwing: CancellationError())
        }

        private func take() -> CheckedContinuation<T, any Error>? {
            state.withLock { state in
                defer { state.continuation = nil }
                return state.continuation
            }
        }
    }
}
