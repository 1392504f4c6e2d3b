import Synchronization

/// Token buckets, one per key (a client address, an email or a client id), for one limited action.
///
/// A bucket holds up to `burst` tokens and gains `perMinute` a minute; each request takes
/// one. A key with a full bucket is the same as an unknown key, so full buckets are dropped
/// whenever the table grows past its high-water mark: memory follows the clients that are
/// actually being limited, not every address ever seen.
final class RateLimiter: Sendable {
    /// Which limit this is.
    let limit: RateLimit
    /// How fast tokens come back and how many may be saved up.
    let rule: RateLimitRule
    private let buckets = Mutex(Table())

    init(limit: RateLimit, rule: RateLimitRule) {
        self.limit = limit
        self.rule = rule
    }

    /// Takes a token from `key`'s bucket, or says how many whole seconds until one is there.
    func take(_ key: String, now: ContinuousClock.Instant = .now) -> RateLimitDecision {
        buckets.withLock { table in
            var bucket = table.entries[key].map { refilled($0, now: now) } ?? Bucket(tokens: Double(rule.burst), updated: now)
            if let refusal = refusal(bucket) {
                table.entries[key] = bucket
                return refusal
            }
            bucket.tokens -= 1
            table.entries[key] = bucket
            if table.entries.count > table.highWater { prune(&table, now: now) }
            return .allowed
        }
    }

    /// Whether `key`'s bucket holds a token, taking none: for a limit charged only when the
    /// request turns out to fail. An unknown key adds nothing to the table.
    func check(_ key: String, now: ContinuousClock.Instant = .now) -> RateLimitDecision {
        buckets.withLock { table in
            table.entries[key].flatMap { refusal(refilled($0, now: now)) } ?? .allowed
        }
    }

    /// Keys whose bucket is tracked, for tests of the pruning.
    var trackedKeys: Int { buckets.withLock { $0.entries.count } }

    private func refilled(_ bucket: Bucket, now: ContinuousClock.Instant) -> Bucket {
        let elapsed = now - bucket.updated
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return Bucket(tokens: min(Double(rule.burst), bucket.tokens + seconds * rule.perSecond), updated: now)
    }

    /// The refusal for a bucket without a whole token, with the seconds until it has one.
    private func refusal(_ bucket: Bucket) -> RateLimitDecision? {
        guard bucket.tokens < 1 else { return nil }
        let seconds = (1 - bucket.tokens) / rule.perSecond
        return .refused(limit, retryAfter: max(1, Int(seconds.rounded(.up))))
    }

    private func prune(_ table: inout Table, now: ContinuousClock.Instant) {
        table.entries = table.entries.filter { refilled($0.value, now: now).tokens < Double(rule.burst) }
        // Twice what survived, so pruning costs O(1) a request however many clients are limited.
        table.highWater = max(Table.minimumHighWater, table.entries.count * 2)
    }

    private struct Bucket {
        var tokens: Double
        var updated: ContinuousClock.Instant
    }

    private struct Table {
        static let minimumHighWater = 1024
        var entries: [String: Bucket] = [:]
        var highWater = minimumHighWater
    }
}

/// The answer to one request.
enum RateLimitDecision: Equatable {
    case allowed
    /// The limit that refused, and whole seconds until its next token.
    case refused(RateLimit, retryAfter: Int)
}
