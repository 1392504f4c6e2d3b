import FieldpassDomain

/// Lifetime of onboarding sessions.
///
/// Keys: `sessions.ttl` (seconds from registration until an unfinished session expires,
/// default 600), `sessions.sweep_interval` (seconds between sweeps, default 5),
/// `sessions.delivery_grace` (seconds a finished session waits for its device to acknowledge
/// the last event before the sweep ends it anyway, default 300),
/// `sessions.retention` (seconds an ended session's events are kept for late readers, default 3600),
/// `sessions.max_sockets_per_session` (default 3) and `sessions.max_sockets` (event sockets
/// of one process, default 20000; as many shared-device long-polls may wait besides).
public struct SessionSettings: Sendable {
    /// Seconds until an unfinished session expires.
    public var ttl: Int
    /// Seconds between two sweeps.
    public var sweepInterval: Int
    /// Seconds a finished session's events, token included, wait for the device's
    /// acknowledgement after the last was stored (and at least until the session's expiry).
    public var deliveryGrace: Int
    /// Seconds an ended session is kept before it is deleted.
    public var retention: Int
    /// Event sockets one session, and the whole process, may hold.
    public var socketLimits: SocketLimits

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        ttl = try settings.int(["sessions", "ttl"], default: 600, in: 1...86_400)
        sweepInterval = try settings.int(["sessions", "sweep_interval"], default: 5, in: 1...3600)
        // Five minutes: a device whose answer was lost (a tunnel, a proxy that cut it) asks
        // again within its backoff (FieldpassDevice: 8 s at most), many times over; and a
        // token nobody collected waits in the store no longer than an unfinished session would.
        deliveryGrace = try settings.int(["sessions", "delivery_grace"], default: 300, in: 0...86_400)
        retention = try settings.int(["sessions", "retention"], default: 3600, in: 0...604_800)
        socketLimits = SocketLimits(
            perSession: try settings.int(["sessions", "max_sockets_per_session"], default: 3, in: 1...100),
            total: try settings.int(["sessions", "max_sockets"], default: 20_000, in: 1...1_000_000)
        )
    }
}
