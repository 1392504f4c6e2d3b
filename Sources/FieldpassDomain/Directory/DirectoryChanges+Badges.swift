import Foundation

/// Badges for shared devices: an admin (and, where the environment lets them, a manager for
/// the workers of his teams) issues them and resets their PINs; an admin, or a manager for
/// the workers of his teams, revokes them (``BadgeRules``).
extension DirectoryChanges {
    package func issueBadge(_ badge: BadgeRecord, settings: BadgeSettings, by caller: DirectoryCaller) async throws {
        try await store.issueBadge(badge, managersIssue: settings.managersIssue(in: caller.environmentID), by: caller, now: Date())
    }

    package func revokeBadge(userID: String, by caller: DirectoryCaller) async throws {
        try await store.revokeBadge(userID: userID, by: caller, now: Date())
    }

    package func resetBadgePin(userID: String, pinHash: String, settings: BadgeSettings, by caller: DirectoryCaller) async throws {
        try await store.resetBadgePin(
            userID: userID, pinHash: pinHash, managersIssue: settings.managersIssue(in: caller.environmentID), by: caller, now: Date())
    }

    /// Refuses at once a caller who may not make temporary PINs in any case (a manager where
    /// the environment keeps that to admins), before a PIN is hashed for him; the store's
    /// transaction decides again on the caller as it reads him.
    package func checkMakesPins(_ settings: BadgeSettings, by caller: DirectoryCaller) throws(DirectoryError) {
        try BadgeRules.checkMakesPins(caller, managersIssue: settings.managersIssue(in: caller.environmentID))
    }
}
