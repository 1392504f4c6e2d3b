import FieldpassDomain

/// Keys of the `shared_devices:` block: `shared_devices.enrollment_ttl`, the seconds an
/// enrollment code works (default 900).
public struct SharedDeviceSettings: Sendable {
    public var enrollmentTTL: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        enrollmentTTL = try settings.int(["shared_devices", "enrollment_ttl"], default: 900, in: 1...604_800)
    }
}
