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

    /// A sign-in with the badge; with a temporary PIN, naming who made it (`pin_issued_by`),
    /// since whoever knew that PIN could have been the one signing in.
    package static func badgeSignIn(userID: String, badgeID: String, deviceID: String, pinIssuedBy: String?) -> AuditRecord {
        var after = ["badge_id": badgeID, "shared_device_id": deviceID]
        if let pinIssuedBy { after["pin_issued_by"] = pinIssuedBy }
        return AuditRecord(actor: userTarget(userID), action: "badge.sign_in", target: userTarget(userID), after: after)
    }

    package static func badgeLocked(userID: String, badgeID: String, deviceID: String) -> AuditRecord {
        AuditRecord(
            actor: ShiftRules.systemActor, action: "badge.lock", target: userTarget(userID),
            after: ["badge_id": badgeID, "shared_device_id": deviceID])
    }
}
