/// Why a badge sign-in on a shared device (``SharedDevice/signIn(badge:pin:newPin:)``) did not
/// start a shift, where the worker can do something about it. Anything else (an unknown,
/// revoked or expired badge, a device that is not enrolled) is
/// `FieldpassClientError.server(401, "invalid_grant", _)`: ask an admin for a new badge.
public enum BadgeSignInError: Error, Equatable, Sendable {
    /// The PIN was the temporary one an admin handed out: ask the worker for a PIN of their
    /// own and sign in again with both.
    case pinChangeRequired
    /// A wrong PIN; after `attemptsLeft` more the badge locks.
    case wrongPin(attemptsLeft: Int)
    /// Too many wrong PINs: an admin must reset the PIN.
    case badgeLocked
    /// The new PIN breaks `rule`: ask for another. `length` is how many digits a PIN has here.
    case newPinRefused(rule: NewPinRule, length: Int)
}
