import Foundation

/// A worker's offline permit as a shared device keeps it: the permit, how to find it by badge,
/// the verifier of the PIN, and the wrong PINs typed against it. Neither the badge nor the PIN
/// is in it.
struct KeptPermit: Codable, Sendable, Equatable {
    /// The compact JWS, checked again at every offline sign-in: the file could have been changed.
    let permit: String
    let permitID: String
    let userID: String
    let expiresAt: Date
    /// ``BadgeDigest`` of the worker's badge.
    let badgeDigest: String
    let verifier: PinVerifier
    /// The permit's `max_failed_pins`: that many wrong PINs in a row lock it on the device.
    let maxFailedPins: Int
    /// Wrong PINs in a row; a right one starts the count again.
    var failedPins = 0
    /// Wrong PINs not yet told to Fieldpass, which counts them toward the badge's lockout.
    var unreportedFailedPins = 0
    /// Every wrong PIN typed against the permit on this device: what a report says, so that
    /// Fieldpass, which remembers the total it counted, counts a report sent twice once.
    var failedPinsTotal = 0

    var locked: Bool { failedPins >= maxFailedPins }

    enum CodingKeys: String, CodingKey {
        case permit, verifier
        case permitID = "permit_id"
        case userID = "user_id"
        case expiresAt = "expires_at"
        case badgeDigest = "badge_digest"
        case maxFailedPins = "max_failed_pins"
        case failedPins = "failed_pins"
        case unreportedFailedPins = "unreported_failed_pins"
        case failedPinsTotal = "failed_pins_total"
    }
}
