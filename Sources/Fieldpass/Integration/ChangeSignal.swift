/// Wakes long-polls when this process stores something they may be waiting for.
///
/// Changes made by other processes are not signalled; waiters also wake on their own
/// after a short time and look again.
actor ChangeSignal {
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiterID = 0

    /// Returns at the next signal, or after `duration`, whichever comes first.
    func wait(atMost duration: Duration) async {
        nextWaiterID += 1
        let id = nextWaiterID
        await withCheckedContinuation { continuation in
            waiters[id] = continuation
            Task {
                try? await Task.sleep(for: duration)
                await self.resume(id)
            }
        }
    }

    /// Wakes every waiter.
    nonisolated func signal() {
        Task { await self.resumeAll() }
    }

    private func resume(_ id: Int) {
        waiters.removeValue(forKey: id)?.resume()
    }

    private func resumeAll() {
        let woken = waiters
        waiters = [:]
        for continuation in woken.values { continuation.resume() }
    }
}
