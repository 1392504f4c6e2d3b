/// Whether `operation` finishes before a timer of `timeout`, started first, goes off.
///
/// For a wait that an event must end long before the wait's own timeout: racing the two
/// asks which came first (the wake-up or the timeout), which a busy machine cannot change,
/// where a bound on the elapsed time would fail whenever the machine is slow.
public func finishesBeforeTimeout(_ timeout: Duration, _ operation: @escaping @Sendable () async throws -> Void) async throws -> Bool {
    try await withThrowingTaskGroup(of: Bool.self) { group in
        group.addTask {
            try await Task.sleep(for: timeout)
            return false
        }
        group.addTask {
            try await operation()
            return true
        }
        defer { group.cancelAll() }
        return try await group.next() ?? false
    }
}
