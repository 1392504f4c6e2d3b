import Foundation

/// Badges for shared devices: an admin, or a manager for the members of his teams, issues,
/// revokes and resets them (``BadgeRules``).
extension DirectoryChanges {
    package func issueBadge(_ badge: BadgeRecord, by caller: DirectoryCaller) async throws {
        try await store.issueBadge(badge, by: caller, now: Date())
    }

    package func revokeBadge(userID: String, by caller: DirectoryCaller) async throws {
        try await store.revokeBadge(userID: userID, by: caller, now: Date())
    }

    package func resetBadgePin(userID: String, pinHash: String, by caller: DirectoryCaller) async throws {
        try await store.resetBadgePin(userID: userID, pinHash: pinHash, by: caller, now: Date())
    }
}
