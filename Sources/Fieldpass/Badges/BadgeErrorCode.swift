/// Codes of a badge sign-in on a shared device.
enum BadgeErrorCode: String, APIErrorCode {
    /// Too many wrong PINs in a row: refused until an admin resets the PIN.
    case badgeLocked = "badge_locked"
    /// The PIN is temporary: it works only with `new_pin`.
    case pinChangeRequired = "pin_change_required"
    /// `new_pin` breaks a PIN rule: `pin_rule` names it, `pin_length` is the length asked for.
    case invalidNewPin = "invalid_new_pin"
}
