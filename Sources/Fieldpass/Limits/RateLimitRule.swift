/// A token-bucket rate: `perMinute` requests a minute on average, with up to `burst` at once.
public struct RateLimitRule: Sendable, Equatable {
    /// Tokens gained a minute.
    public var perMinute: Int
    /// Tokens a bucket holds at most.
    public var burst: Int

    public init(perMinute: Int, burst: Int) {
        self.perMinute = perMinute
        self.burst = burst
    }

    var perSecond: Double { Double(perMinute) / 60 }
}
