/// The audit entries of badges: issued, revoked, PIN reset, signed in with, locked.
extension AuditRecord {
    package static func badgeIssued(actor: String, userID: String, badgeID: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "badge.issue", target: userTarget(userID), after: ["badge_id": badgeID])
    }

    package static func badgeRevoked(actor: String, userID: String, badgeID: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "badge.revoke", target: userTarget(userID), before: ["badge_id": badgeID])
    }

    package static func badgePinReset(actor: String, userID: String, badgeID: String) -> AuditRecord {
        AuditRecord(actor: actor, action: "badge.reset_pin", target: userTarget(userID), after: ["badge_id": badgeID])
    }

    package static func badgeSignIn(userID: String, badgeID: String, deviceID: String) -> AuditRecord {
        AuditRecord(
            actor: userTarget(userID), action: "badge.sign_in", target: userTarget(userID),
            after: ["badge_id": badgeID, "shared_device_id": deviceID])
    }

    package static func badgeLocked(userID: String, badgeID: String, deviceID: String) -> AuditRecord {
        AuditRecord(
            actor: ShiftRules.systemActor, action: "badge.lock", target: userTarget(userID),
            after: ["badge_id": badgeID, "shared_device_id": deviceID])
    }
}
