import Synchronization

/// Answers operations on PostgreSQL whose ``AnswerDeadline`` passed: one task for all of
/// them, looking a few times a second while any waits.
///
/// A `Task.sleep` raced beside every operation cost two tasks more per statement batch, and
/// left a timer in the dispatch heap until its timeout passed: at a few hundred operations a
/// second, thousands of timers, each firing seconds after its operation ended, and the
/// heap's sorting and the wake-ups showed in an idle instance's profile for as long.
final class DeadlineWatch: Sendable {
    /// An operation's caller, waiting for its answer.
    protocol Waiter: AnyObject, Sendable {
        var deadline: AnswerDeadline { get }
        func deadlinePassed()
    }

    private struct State {
        var nextID = 0
        var waiting: [Int: any Waiter] = [:]
        var looking = false
    }

    static let shared = DeadlineWatch(every: .milliseconds(50))

    private let state = Mutex(State())
    private let interval: Duration

    /// A deadline is noticed at most `interval` after it passed.
    init(every interval: Duration) {
        self.interval = interval
    }

    /// Watches `waiter` until ``forget(_:)``; returns its ticket.
    func watch(_ waiter: any Waiter) -> Int {
        let (id, startsLooking) = state.withLock { state in
            defer { state.nextID += 1 }
            state.waiting[state.nextID] = waiter
            defer { state.looking = true }
            return (state.nextID, !state.looking)
        }
        if startsLooking { Task { await look() } }
        return id
    }

    func forget(_ id: Int) {
        _ = state.withLock { $0.waiting.removeValue(forKey: id) }
    }

    /// Answers the waiters whose deadline passed, every `interval` until none waits. Its task
    /// is nobody's to cancel: at shutdown the operations end, and it returns one `interval`
    /// after the last one; the next ``watch(_:)`` starts it again.
    private func look() async {
        while true {
            try? await Task.sleep(for: interval)
            let now = ContinuousClock.now
            let passed = state.withLock { state -> [any Waiter]? in
                guard !state.waiting.isEmpty else {
                    state.looking = false
                    return nil
                }
                let due = state.waiting.filter { $0.value.deadline.due <= now }
                for id in due.keys { state.waiting.removeValue(forKey: id) }
                return Array(due.values)
            }
            guard let passed else { return }
            for waiter in passed { waiter.deadlinePassed() }
        }
    }
}
