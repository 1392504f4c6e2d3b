import Synchronization

/// Lets at most `capacity` callers hold a place at once, and at most `share` of them with
/// one key (an environment), so one company's backend cannot take every place from the
/// others. The rest are turned away at once rather than queued, since what they wait for
/// (a long-poll) is itself a wait.
final class ConcurrencyGate: Sendable {
    let capacity: Int
    /// Places one key may hold at once.
    let share: Int
    private let holders = Mutex(Holders())

    /// A gate whose `capacity` is split evenly between `keys` keys (each gets at least one place).
    init(capacity: Int, keys: Int) {
        self.capacity = capacity
        share = Self.share(of: capacity, between: keys)
    }

    /// An even split of `capacity` between `keys` keys, at least one place each.
    static func share(of capacity: Int, between keys: Int) -> Int {
        max(1, capacity / max(1, keys))
    }

    /// Runs `body` holding a place for `key`, or returns nil without running it when all
    /// places, or all of `key`'s share, are taken.
    func withPlace<T>(for key: String, _ body: () async throws -> T) async rethrows -> T? {
        let admitted = holders.withLock { held in
            guard held.total < capacity, held.byKey[key, default: 0] < share else { return false }
            held.total += 1
            held.byKey[key, default: 0] += 1
            return true
        }
        guard admitted else { return nil }
        defer {
            holders.withLock { held in
                held.total -= 1
                held.byKey.releasePlace(of: key)
            }
        }
        return try await body()
    }

    private struct Holders {
        var total = 0
        var byKey: [String: Int] = [:]
    }
}
