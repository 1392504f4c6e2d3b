/// Rate limits and concurrency caps that keep one client from taking the service for itself.
///
/// Keys: `limits.enabled` (default true; off for load tests), `limits.<name>.per_minute` and
/// `limits.<name>.burst` for each name in ``LimitSettings/defaults`` (per client address,
/// except `register_device_email`, which is per email), and `limits.integration_long_polls`
/// (integration feed long-polls waiting at once, default 64).
public struct LimitSettings: Sendable {
    /// Whether the rate limits apply at all.
    public var enabled: Bool
    /// Each rate limit by its name.
    public var rules: [String: RateLimitRule]
    /// Long-polls on the integration feed that may wait at once.
    public var integrationLongPolls: Int

    /// The rate limits and their defaults. Per-address limits are generous because a whole
    /// crew often shares one address (an office or a carrier's NAT); the per-email limit is
    /// what stops one mailbox being flooded with sign-in links.
    public static let defaults: [(name: String, rule: RateLimitRule)] = [
        ("register_device", RateLimitRule(perMinute: 30, burst: 60)),
        ("register_device_email", RateLimitRule(perMinute: 2, burst: 5)),
        ("confirmation", RateLimitRule(perMinute: 60, burst: 30)),
        ("auth_callback", RateLimitRule(perMinute: 60, burst: 30)),
        ("token", RateLimitRule(perMinute: 600, burst: 120)),
        ("revoke", RateLimitRule(perMinute: 120, burst: 60)),
        ("introspect", RateLimitRule(perMinute: 3000, burst: 600)),
    ]

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        enabled = try settings.bool(["limits", "enabled"], default: true)
        var rules: [String: RateLimitRule] = [:]
        for (name, rule) in Self.defaults {
            rules[name] = RateLimitRule(
                perMinute: try settings.int(["limits", name, "per_minute"], default: rule.perMinute, in: 1...1_000_000),
                burst: try settings.int(["limits", name, "burst"], default: rule.burst, in: 1...1_000_000)
            )
        }
        self.rules = rules
        integrationLongPolls = try settings.int(["limits", "integration_long_polls"], default: 64, in: 1...100_000)
    }

    /// The limiter for `name`, or nil when limits are off.
    func limiter(_ name: String) -> RateLimiter? {
        guard enabled, let rule = rules[name] else { return nil }
        return RateLimiter(name: name, rule: rule)
    }
}
