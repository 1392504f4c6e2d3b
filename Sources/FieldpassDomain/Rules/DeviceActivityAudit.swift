/// Which of a device's sign-ins and refreshes the audit log records, so that its volume stays
/// bounded: a sign-in is rare (a person at the IdP, rate-limited registrations) and is always
/// written, with `device.create` before it the first time; a refresh happens every access-token
/// lifetime on every device, so only a device's first refresh of a UTC day on which it was not
/// seen yet is written: at most one `token.refresh` entry a device a day. The device's row
/// keeps the latest (`last_seen_at`).
package enum DeviceActivityAudit {
    package static let day: Double = 86_400

    /// The entries of a completed sign-in of the device `name` on `platform`.
    package static func signIn(userID: String, deviceID: String, name: String, platform: String, signedInBefore: Bool) -> [AuditRecord] {
        let signedIn = AuditRecord.deviceSignedIn(userID: userID, deviceID: deviceID)
        guard !signedInBefore else { return [signedIn] }
        return [.deviceCreated(userID: userID, deviceID: deviceID, name: name, platform: platform), signedIn]
    }

    /// The entry of a rotation at `now` of a device last seen at `lastSeenAt`, or `nil`.
    package static func refresh(_ grant: RefreshGrant, lastSeenAt: Double?, now: Double) -> AuditRecord? {
        guard let lastSeenAt, (lastSeenAt / day).rounded(.down) == (now / day).rounded(.down) else {
            return .tokenRefreshed(grant)
        }
        return nil
    }
}
