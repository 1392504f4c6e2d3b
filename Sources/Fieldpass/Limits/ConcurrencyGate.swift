import Synchronization

/// Lets at most `capacity` callers hold a place at once; the rest are turned away at once
/// rather than queued, since what they wait for (a long-poll) is itself a wait.
final class ConcurrencyGate: Sendable {
    let capacity: Int
    private let holders = Atomic(0)

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Runs `body` holding a place, or returns nil without running it when all are taken.
    func withPlace<T>(_ body: () async throws -> T) async rethrows -> T? {
        let before = holders.add(1, ordering: .relaxed).oldValue
        defer { holders.subtract(1, ordering: .relaxed) }
        guard before < capacity else { return nil }
        return try await body()
    }
}
