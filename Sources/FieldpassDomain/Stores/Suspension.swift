/// The two halves of every wait for a signal with a time limit, written once: the waiting
/// is a child task of the caller, so nothing outlives the wait.
package enum Suspension {
    /// Returns when `wait` returns or `duration` has passed, whichever comes first; the other
    /// is cancelled.
    package static func wait(atMost duration: Duration, for wait: @escaping @Sendable () async -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await wait() }
            group.addTask { try? await Task.sleep(for: duration) }
            await group.next()
            group.cancelAll()
        }
    }

    /// Suspends until the continuation `park` keeps is resumed. `park` returns `false` to
    /// return at once instead; it must check `Task.isCancelled` under the same lock it keeps
    /// the continuation with. At cancellation `unpark` gives the continuation back, if still
    /// kept, to be resumed here.
    package static func park(
        _ park: (CheckedContinuation<Void, Never>) -> Bool, unpark: @Sendable () -> CheckedContinuation<Void, Never>?
    ) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if !park(continuation) { continuation.resume() }
            }
        } onCancel: {
            unpark()?.resume()
        }
    }
}
