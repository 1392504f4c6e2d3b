/// A badge sign-in's PIN, checked before the store's transaction: whether it matched the
/// badge's stored hash, the hash it was checked against, and the hash of the worker's new PIN.
///
/// The new PIN costs a hash only where the sign-in can take it: after the PIN matched a
/// temporary one. A wrong PIN, an unknown badge or a worker's own PIN costs one hash, whatever
/// `new_pin` says, so a try with a made-up badge costs the hasher no more than any other.
package struct PinCheck: Sendable, Equatable {
    package var matched: Bool
    package var checked: String
    package var newPinHash: String?

    /// `pin` checked against `badge`'s PIN (an unknown badge's against the decoy), and
    /// `newPin` hashed when the PIN was the badge's temporary one, in `environmentID`'s turn.
    package static func check(
        _ pin: String, newPin: String?, badge: BadgeRecord?, environmentID: String, on hasher: some PinHashing
    ) async throws -> PinCheck {
        let (matched, checked) = try await hasher.verify(pin, against: badge?.pinHash, for: environmentID)
        guard let badge, matched else { return PinCheck(matched: false, checked: checked) }
        guard badge.pinTemporary, let newPin else { return PinCheck(matched: true, checked: checked) }
        return PinCheck(matched: true, checked: checked, newPinHash: try await hasher.make(newPin, for: environmentID))
    }
}
