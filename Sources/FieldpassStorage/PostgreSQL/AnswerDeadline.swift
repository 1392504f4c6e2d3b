import Synchronization

/// When an operation on PostgreSQL counts as unanswered: `timeout` after it started, moved on
/// each time a part of it is answered.
///
/// A shared transaction (``GroupCommit``) applies one change after another, each a few round
/// trips; its length grows with the batch and with how busy the machine is, while each
/// change is answered promptly. A deadline for the whole batch would call a database that
/// answers every statement "unavailable" on a loaded machine; this one trips only when one
/// change waits `timeout` for its answers.
final class AnswerDeadline: Sendable {
    private let timeout: Duration
    private let deadline: Mutex<ContinuousClock.Instant>

    init(timeout: Duration) {
        self.timeout = timeout
        deadline = Mutex(.now + timeout)
    }

    /// When the operation counts as unanswered, unless a part of it is answered first.
    var due: ContinuousClock.Instant { deadline.withLock { $0 } }

    /// A part of the operation was answered: the next one has `timeout` again.
    func answered() {
        deadline.withLock { $0 = .now + timeout }
    }

    /// What `operation` returns, or nil once the deadline passes first (``DeadlineWatch``).
    /// The operation is then cancelled and not waited for (``PendingAnswer``): the caller is
    /// answered at its deadline even when the operation never resumes. A cancelled caller is
    /// answered `CancellationError` at once, likewise.
    func race<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
        let pending = PendingAnswer<T>(deadline: self)
        let ticket = DeadlineWatch.shared.watch(pending)
        defer { DeadlineWatch.shared.forget(ticket) }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in pending.start(continuation, operation) }
        } onCancel: {
            pending.end(with: .failure(CancellationError()))
        }
    }
}
