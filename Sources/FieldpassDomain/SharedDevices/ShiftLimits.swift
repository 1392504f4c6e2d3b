/// How long a shift may run, in seconds: `shared_devices.max_shift` from its start, and
/// `shared_devices.idle_timeout` since its device was last seen (its sign-in or last refresh).
public struct ShiftLimits: Sendable, Equatable {
    public var maxShift: Int
    public var idleTimeout: Int

    public init(maxShift: Int = 43_200, idleTimeout: Int = 1_800) {
        self.maxShift = maxShift
        self.idleTimeout = idleTimeout
    }

    /// The limit a shift started at `startedAt`, its device last seen at `lastSeenAt`, has
    /// reached at `now`, if any (the longer-standing one first).
    package func reached(startedAt: Double, lastSeenAt: Double?, now: Double) -> ShiftEndReason? {
        if now - startedAt >= Double(maxShift) { return .maxShift }
        if now - (lastSeenAt ?? startedAt) >= Double(idleTimeout) { return .idle }
        return nil
    }
}
