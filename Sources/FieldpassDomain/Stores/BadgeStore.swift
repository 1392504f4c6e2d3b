public import Foundation

/// Badges for signing in on shared devices (``BadgeRules``). Each change is one transaction
/// with its audit entry; the caller's standing, the person and their teams are read inside it.
/// Another environment's person is unknown.
public protocol BadgeStore: Sendable {
    /// Stores `badge` for its person, replacing theirs, with the caller as its PIN's issuer. A
    /// manager where `managersIssue` is false: `DirectoryError.notAllowed`; one the caller does
    /// not look after, or unknown: `DirectoryError.unknownUser`.
    func issueBadge(_ badge: BadgeRecord, managersIssue: Bool, by caller: DirectoryCaller, now: Date) async throws

    /// Deletes the person's badge: `unknownUser`, or `unknownBadge` when they have none.
    func revokeBadge(userID: String, by caller: DirectoryCaller, now: Date) async throws

    /// Gives the person's badge a new temporary PIN, which unlocks it; refused as an issue is.
    func resetBadgePin(userID: String, pinHash: String, managersIssue: Bool, by caller: DirectoryCaller, now: Date) async throws

    /// The person's badge, if they have one.
    func badge(userID: String, environmentID: String) async throws -> BadgeRecord?

    /// The badge with this hash, of any environment, for checking a PIN before the sign-in's
    /// transaction.
    func badge(hash: String) async throws -> BadgeRecord?

    /// A sign-in with a badge on the shared device whose key made the attempt's proof, decided
    /// and written in one transaction, which also records the proof's use.
    func signInWithBadge(_ attempt: BadgeAttempt, now: Date) async throws -> BadgeOutcome
}
