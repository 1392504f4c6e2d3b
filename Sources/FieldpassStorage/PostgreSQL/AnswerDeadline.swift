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

    /// A part of the operation was answered: the next one has `timeout` again.
    func answered() {
        deadline.withLock { $0 = .now + timeout }
    }

    /// Returns once the deadline has passed without being moved; throws if cancelled.
    func passed() async throws {
        while true {
            let instant = deadline.withLock { $0 }
            guard instant > .now else { return }
            try await Task.sleep(until: instant, clock: .continuous)
        }
    }

    /// What `operation` returns, or nil once the deadline passes first. The operation is then
    /// cancelled and not waited for (``LeftBehindOnCancel``): the caller is answered at its
    /// deadline even when the operation never resumes.
    func race<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T? {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await LeftBehindOnCancel.run(operation) }
            group.addTask {
                try await self.passed()
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
    }
}
