/// The `badges:` block: how long a badge works (`lifetime`, seconds, default 31,536,000), how
/// many digits a PIN has (`pin_length`, 6 to 20, default 8), and how many wrong PINs in a row
/// lock the badge (`max_failed_pins`, default 5).
public struct BadgeSettings: Sendable, Equatable {
    public var lifetime: Int
    public var pinLength: Int
    public var maxFailedPins: Int

    public init(lifetime: Int = 31_536_000, pinLength: Int = 8, maxFailedPins: Int = 5) {
        self.lifetime = lifetime
        self.pinLength = pinLength
        self.maxFailedPins = maxFailedPins
    }
}
