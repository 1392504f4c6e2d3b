package import FieldpassDomain
import Foundation
import Tokens

/// A badge just issued by an admin, a manager or the CLI, with its value and temporary PIN,
/// which are shown this once: the store keeps only their hashes.
package struct BadgeIssue: Sendable {
    package let badge: BadgeRecord
    package let value: String
    package let temporaryPin: String
}

/// The temporary PINs of issues and resets are hashed on the ``PinHasher``, in the caller's
/// environment's turn and share, as its sign-ins' PINs are: never on the threads that serve
/// every company's requests.
extension DirectoryChanges {
    /// Issues a badge for `userID`, replacing theirs: a new value and temporary PIN, working
    /// for `settings.lifetime` seconds.
    package func issueBadge(
        userID: String, settings: BadgeSettings, hasher: PinHasher, by caller: DirectoryCaller
    ) async throws -> BadgeIssue {
        try checkMakesPins(settings, by: caller)
        let now = Date()
        let (value, digest) = try BadgeCredentials.makeBadge()
        let pin = try BadgeCredentials.temporaryPin(length: settings.pinLength)
        let badge = BadgeRecord(
            id: UUID().uuidString.lowercased(), userID: userID, environmentID: caller.environmentID, badgeHash: digest,
            pinHash: try await hasher.make(pin, for: caller.environmentID), issuedAt: now,
            expiresAt: now.addingTimeInterval(TimeInterval(settings.lifetime)))
        try await issueBadge(badge, settings: settings, by: caller)
        return BadgeIssue(badge: badge, value: value, temporaryPin: pin)
    }

    /// A new temporary PIN for `userID`'s badge, which unlocks it; answers the PIN.
    package func resetBadgePin(
        userID: String, settings: BadgeSettings, hasher: PinHasher, by caller: DirectoryCaller
    ) async throws -> String {
        try checkMakesPins(settings, by: caller)
        let pin = try BadgeCredentials.temporaryPin(length: settings.pinLength)
        try await resetBadgePin(
            userID: userID, pinHash: try await hasher.make(pin, for: caller.environmentID), settings: settings, by: caller)
        return pin
    }
}
