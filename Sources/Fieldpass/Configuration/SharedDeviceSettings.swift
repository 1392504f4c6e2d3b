public import FieldpassDomain

/// Keys of the `shared_devices:` block, in seconds: `enrollment_ttl`, how long an enrollment
/// code works (default 900); `max_shift`, how long a shift may run (default 43,200); and
/// `idle_timeout`, how long a shift may go without a refresh (default 1,800); and
/// `offline_permit_ttl`, how long an offline permit lets its person start a shift on the
/// device without a network (default 0: offline shifts are off; at most 30 days).
public struct SharedDeviceSettings: Sendable {
    public var enrollmentTTL: Int
    public var shiftLimits: ShiftLimits
    public var offlinePermitTTL: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        enrollmentTTL = try settings.int(["shared_devices", "enrollment_ttl"], default: 900, in: 1...604_800)
        shiftLimits = ShiftLimits(
            maxShift: try settings.int(["shared_devices", "max_shift"], default: 43_200, in: 1...604_800),
            idleTimeout: try settings.int(["shared_devices", "idle_timeout"], default: 1_800, in: 1...604_800))
        offlinePermitTTL = try settings.int(["shared_devices", "offline_permit_ttl"], default: 0, in: 0...2_592_000)
    }
}
