import FieldpassDomain

/// Keys of the `badges:` block: `badges.lifetime` (seconds a badge works, default 31,536,000:
/// 365 days), `badges.pin_length` (digits of a PIN, 6 to 20, default 8) and
/// `badges.max_failed_pins` (wrong PINs in a row that lock a badge, default 5).
extension BadgeSettings {
    init(_ settings: SettingsReader) throws(ConfigurationError) {
        self.init(
            lifetime: try settings.int(["badges", "lifetime"], default: 31_536_000, in: 60...(10 * 31_536_000)),
            pinLength: try settings.int(["badges", "pin_length"], default: 8, in: PinRules.allowedLengths),
            maxFailedPins: try settings.int(["badges", "max_failed_pins"], default: 5, in: 1...100))
    }
}
