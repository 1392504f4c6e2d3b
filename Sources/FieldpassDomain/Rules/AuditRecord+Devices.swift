/// The audit entries of a device's own activity: its first sign-in, every sign-in, and its
/// refreshes as ``DeviceActivityAudit`` bounds them.
extension AuditRecord {
    /// An installation signed in for the first time: from now on it holds tokens.
    package static func deviceCreated(userID: String, deviceID: String, name: String, platform: String) -> AuditRecord {
        AuditRecord(
            actor: userTarget(userID), action: "device.create", target: userTarget(userID),
            after: ["device_id": deviceID, "name": name, "platform": platform]
        )
    }

    /// A sign-in at the IdP gave the device its tokens (the failures are `login.<error>`).
    package static func deviceSignedIn(userID: String, deviceID: String) -> AuditRecord {
        AuditRecord(actor: userTarget(userID), action: "device.sign_in", target: userTarget(userID), after: ["device_id": deviceID])
    }

    /// The device rotated its refresh token.
    package static func tokenRefreshed(_ grant: RefreshGrant) -> AuditRecord {
        AuditRecord(
            actor: userTarget(grant.userID), action: "token.refresh", target: userTarget(grant.userID),
            after: ["device_id": grant.deviceID]
        )
    }
}
