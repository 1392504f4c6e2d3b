/// A rule of a worker's own PIN that a new PIN broke (``BadgeSignInError/newPinRefused(rule:length:)``).
/// A PIN is digits only, of the company's length (`badges.pin_length`, 8 unless set), not one
/// digit repeated and not a run up or down: an app can check these before it sends the PIN.
public enum NewPinRule: String, Equatable, Sendable {
    /// Only the digits 0 to 9.
    case digitsOnly = "digits_only"
    /// Exactly the length the error carries.
    case length
    /// Not one digit repeated (`77777777`).
    case oneDigit = "one_digit"
    /// Not a run up or down, wrapping past 9 or 0 (`12345678`, `98765432`, `78901234`).
    case run
}
