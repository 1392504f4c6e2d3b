import Synchronization

/// Wakes whoever waits for something to be stored: long-polls, and observers such as the
/// event hub.
///
/// Signalling costs one uncontended lock when nobody waits, so it can sit on the
/// `register_device` path. Waiters also wake on their own after a time and look again.
public final class ChangeSignal: Sendable {
    private struct Waiters {
        package var continuations: [Int: CheckedContinuation<Void, Never>] = [:]
        package var observers: [@Sendable () -> Void] = []
        package var nextID = 0
        /// Counts signals, so a signal between a look and a wait is not lost.
        package var generation = 0
    }

    private let waiters = Mutex(Waiters())

    public init() {}

    /// Take this before looking for changes, and pass it to ``wait(atMost:after:)``.
    package var generation: Int { waiters.withLock { $0.generation } }

    /// Returns at the next signal, or after `duration`, whichever comes first; at once if a
    /// signal came since `generation` was taken. The timer is a child task, ended with the wait.
    package func wait(atMost duration: Duration, after generation: Int) async {
        await Self.wait(atMost: duration, forAnyOf: [(self, generation)])
    }

    /// Returns at the first signal of any of `signals` after its generation, or after
    /// `duration`: a long-poll wakes for its data, and for what ends it (a newer poll, draining).
    package static func wait(atMost duration: Duration, forAnyOf signals: [(ChangeSignal, generation: Int)]) async {
        await Suspension.wait(atMost: duration) {
            await withTaskGroup(of: Void.self) { group in
                for (signal, generation) in signals {
                    group.addTask { await signal.nextSignal(after: generation) }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Returns at the next signal after `generation`, or when the task is cancelled.
    private func nextSignal(after generation: Int) async {
        let id = waiters.withLock { waiters in
            waiters.nextID += 1
            return waiters.nextID
        }
        await Suspension.park { continuation in
            waiters.withLock { waiters in
                // Signalled since, or cancelled before it could wait: nothing to wait for.
                guard waiters.generation == generation, !Task.isCancelled else { return false }
                waiters.continuations[id] = continuation
                return true
            }
        } unpark: {
            waiters.withLock { $0.continuations.removeValue(forKey: id) }
        }
    }

    /// Calls `observer` at every signal from now on.
    package func observe(_ observer: @escaping @Sendable () -> Void) {
        waiters.withLock { $0.observers.append(observer) }
    }

    /// Wakes every waiter and tells every observer.
    package func signal() {
        let (woken, observers) = waiters.withLock { waiters in
            waiters.generation += 1
            defer { waiters.continuations = [:] }
            return (waiters.continuations, waiters.observers)
        }
        for continuation in woken.values { continuation.resume() }
        for observer in observers { observer() }
    }
}
