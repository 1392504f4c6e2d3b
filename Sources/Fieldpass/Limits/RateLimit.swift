/// The rate limits, named as in their configuration keys (`limits.<name>.per_minute`) and
/// in the `limit` label of `fieldpass_rate_limited_total`.
public enum RateLimit: String, CaseIterable, Sendable {
    case registerDevice = "register_device"
    /// Keyed by email rather than by client address.
    case registerDeviceEmail = "register_device_email"
    case confirmation
    case authCallback = "auth_callback"
    /// Opening the event socket: a session id is a secret, so guessing is what it stops.
    case events
    case token
    case revoke
    case introspect
    /// Failed client authentications at `/token`, `/revoke` and `/introspect`, keyed by the
    /// (configured) client id, so that many addresses together cannot grind one secret.
    case clientAuthentication = "client_authentication"
    /// SCIM requests, keyed by the token (so by environment): an IdP's provisioning cycle
    /// sends bursts, which it retries after a 429.
    case scim
    /// Requests with a wrong SCIM token, keyed by client address: without it, tokens could
    /// be guessed as fast as the server answers.
    case scimAuthentication = "scim_authentication"
    /// Badge sign-ins, keyed by the badge: on top of the lockout, it paces tries at one badge
    /// from many devices.
    case badgeSignIn = "badge_sign_in"
    /// Badge sign-ins, keyed by the shared device's key: one tablet cannot try many badges fast.
    case sharedDeviceSignIn = "shared_device_sign_in"

    /// Generous per address, because a whole crew often shares one (an office, a carrier's
    /// NAT); the per-email limit is what stops one mailbox being flooded with sign-in links.
    public var defaultRule: RateLimitRule {
        switch self {
        case .registerDevice: RateLimitRule(perMinute: 30, burst: 60)
        case .registerDeviceEmail: RateLimitRule(perMinute: 2, burst: 5)
        case .confirmation, .authCallback: RateLimitRule(perMinute: 60, burst: 30)
        case .events: RateLimitRule(perMinute: 120, burst: 60)
        case .token: RateLimitRule(perMinute: 600, burst: 120)
        case .revoke: RateLimitRule(perMinute: 120, burst: 60)
        case .introspect: RateLimitRule(perMinute: 3000, burst: 600)
        // A token every 10 s: an honest client is back at most that long after someone else's failures stop.
        case .clientAuthentication: RateLimitRule(perMinute: 6, burst: 10)
        case .scim: RateLimitRule(perMinute: 1200, burst: 600)
        case .scimAuthentication: RateLimitRule(perMinute: 6, burst: 10)
        case .badgeSignIn: RateLimitRule(perMinute: 6, burst: 10)
        case .sharedDeviceSignIn: RateLimitRule(perMinute: 30, burst: 30)
        }
    }

    /// Who the 429 says has sent too many.
    var refusedClient: String {
        switch self {
        case .registerDeviceEmail: "for this email"
        case .clientAuthentication: "with a wrong secret for this client"
        case .scim: "with this SCIM token"
        case .scimAuthentication: "with a wrong SCIM token from this address"
        case .badgeSignIn: "with this badge"
        case .sharedDeviceSignIn: "from this device"
        default: "from this address"
        }
    }
}
