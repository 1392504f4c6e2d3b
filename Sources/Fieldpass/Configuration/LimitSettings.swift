import FieldpassDomain

/// Rate limits and concurrency caps that keep one client from taking the service for itself.
///
/// Keys: `limits.enabled` (default true; off for load tests), `limits.<name>.per_minute` and
/// `limits.<name>.burst` for each ``RateLimit`` (per client address, except
/// `register_device_email`, which is per email, and `client_authentication`, which is per
/// service-account client id), `limits.ipv6_prefix` (the leading bits of an IPv6 client
/// address that make its bucket, 1 to 128, default 64) and `limits.integration_long_polls`
/// (integration feed long-polls waiting at once, default 64, shared fairly between the
/// environments with service accounts).
public struct LimitSettings: Sendable {
    /// Whether the rate limits apply at all.
    public var enabled: Bool
    /// Each rate limit's rule.
    public var rules: [RateLimit: RateLimitRule]
    /// Leading bits of an IPv6 client address that name the client: a host usually has a
    /// whole /64 to pick addresses from.
    public var ipv6Prefix: Int
    /// Long-polls on the integration feed that may wait at once.
    public var integrationLongPolls: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        enabled = try settings.bool(["limits", "enabled"], default: true)
        var rules: [RateLimit: RateLimitRule] = [:]
        for limit in RateLimit.allCases {
            let name = limit.rawValue, rule = limit.defaultRule
            rules[limit] = RateLimitRule(
                perMinute: try settings.int(["limits", name, "per_minute"], default: rule.perMinute, in: 1...1_000_000),
                burst: try settings.int(["limits", name, "burst"], default: rule.burst, in: 1...1_000_000)
            )
        }
        self.rules = rules
        ipv6Prefix = try settings.int(["limits", "ipv6_prefix"], default: 64, in: 1...128)
        integrationLongPolls = try settings.int(["limits", "integration_long_polls"], default: 64, in: 1...100_000)
    }

    /// The limiter for `limit`, or nil when limits are off.
    func limiter(_ limit: RateLimit) -> RateLimiter? {
        guard enabled else { return nil }
        return RateLimiter(limit: limit, rule: rules[limit] ?? limit.defaultRule)
    }
}
