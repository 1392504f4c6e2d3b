import Synchronization

/// Wakes long-polls when this process stores something they may be waiting for.
///
/// Signalling costs one uncontended lock when nobody waits, so it can sit on the
/// `register_device` path. Changes made by other processes are not signalled; waiters also
/// wake on their own after a short time and look again.
final class ChangeSignal: Sendable {
    private struct Waiters {
        var continuations: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextID = 0
    }

    private let waiters = Mutex(Waiters())

    /// Returns at the next signal, or after `duration`, whichever comes first.
    func wait(atMost duration: Duration) async {
        await withCheckedContinuation { continuation in
            let id = waiters.withLock { waiters in
                waiters.nextID += 1
                waiters.continuations[waiters.nextID] = continuation
                return waiters.nextID
            }
            Task {
                try? await Task.sleep(for: duration)
                self.waiters.withLock { $0.continuations.removeValue(forKey: id) }?.resume()
            }
        }
    }

    /// Wakes every waiter.
    func signal() {
        let woken = waiters.withLock { waiters in
            defer { waiters.continuations = [:] }
            return waiters.continuations
        }
        for continuation in woken.values { continuation.resume() }
    }
}
