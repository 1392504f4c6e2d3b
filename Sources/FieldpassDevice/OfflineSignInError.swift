/// Why ``SharedDevice/signInOffline(badge:pin:now:)`` did not start an offline shift. Only a
/// worker who signed in online on this device with a badge, while Fieldpass's offline permits
/// were on, can sign in offline on it; the rest needs the network.
public enum OfflineSignInError: Error, Equatable, Sendable {
    /// No permit on the device for this badge: the worker never signed in online here with it
    /// (or the permit was withdrawn, or the card is another). Sign in online.
    case noPermit
    /// A wrong PIN; after `attemptsLeft` more the permit locks on the device. Fieldpass hears of
    /// every wrong PIN at the next reconciliation, and counts them toward the badge's lockout.
    case wrongPin(attemptsLeft: Int)
    /// Too many wrong PINs in a row on this device: offline sign-in with this badge is over
    /// until the worker signs in online again (after an admin resets the PIN, if Fieldpass
    /// locked the badge too).
    case locked
    /// The permit expired: sign in online for a new one.
    case expired
    /// The permit is bound to another device's key: it was copied here.
    case notThisDevice
    /// The permit is not one Fieldpass signed with a key the device keeps (a changed file, a
    /// key Fieldpass has not published to this device yet), or not a permit at all.
    case invalidPermit
    /// ``ScryptParameters`` that scrypt cannot run with.
    case invalidParameters
}
