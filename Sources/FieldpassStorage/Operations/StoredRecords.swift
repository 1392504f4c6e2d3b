import FieldpassDomain
import Foundation

// The records read from rows, decoded once for both stores (``StoredRow``).

extension UserRecord {
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), environmentID: try row.column("environment_id"), email: try row.column("email"),
            role: Role(stored: try row.column("role")), createdAt: Date(timeIntervalSince1970: try row.column("created_at")),
            idpIssuer: try row.column("idp_issuer"), idpSubject: try row.column("idp_subject"),
            disabled: try row.column("disabled_at", as: Double?.self) != nil)
    }
}

extension SharedDeviceRecord {
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), environmentID: try row.column("environment_id"), name: try row.column("name"),
            teamID: try row.column("team_id"), createdAt: Date(timeIntervalSince1970: try row.column("created_at")),
            enrollmentExpiresAt: Date(timeIntervalSince1970: try row.column("enrollment_expires_at")),
            enrolledAt: try row.column("enrolled_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            keyThumbprint: try row.column("key_thumbprint"),
            unenrolledAt: try row.column("unenrolled_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)))
    }
}

extension ShiftRecord {
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), sharedDeviceID: try row.column("shared_device_id"), userID: try row.column("user_id"),
            email: try row.column("email"), startedAt: Date(timeIntervalSince1970: try row.column("started_at")),
            endedAt: try row.column("ended_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            endReason: try row.column("end_reason", as: String?.self).flatMap(ShiftEndReason.init(rawValue:)),
            amr: ShiftTables.amr(try row.column("amr")), pinIssuedBy: try row.column("pin_issued_by"),
            offlinePermitID: try row.column("offline_permit_id"))
    }
}

extension OfflinePermitRecord {
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), sharedDeviceID: try row.column("shared_device_id"), environmentID: try row.column("environment_id"),
            userID: try row.column("user_id"), badgeID: try row.column("badge_id"),
            issuedAt: Date(timeIntervalSince1970: try row.column("issued_at")),
            expiresAt: Date(timeIntervalSince1970: try row.column("expires_at")),
            withdrawnAt: try row.column("withdrawn_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            failedPinsCounted: try row.column("failed_pins_counted"))
    }
}

extension ShiftEvent {
    /// An event of a kind this version does not know is skipped (nil).
    init?(row: some StoredRow) throws {
        guard let type = ShiftEvent.Kind(rawValue: try row.column("type")) else { return nil }
        self.init(
            seq: try row.column("seq"), type: type, shiftID: try row.column("shift_id"), userID: try row.column("user_id"),
            email: try row.column("email"), reason: try row.column("reason", as: String?.self).flatMap(ShiftEndReason.init(rawValue:)),
            at: Date(timeIntervalSince1970: try row.column("at")))
    }
}

extension BadgeRecord {
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), userID: try row.column("user_id"), environmentID: try row.column("environment_id"),
            badgeHash: try row.column("badge_hash"), pinHash: try row.column("pin_hash"), pinTemporary: try row.column("pin_temporary"),
            pinIssuedBy: try row.column("pin_issued_by"), failedPins: try row.column("failed_pins"),
            lockedAt: try row.column("locked_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            issuedAt: Date(timeIntervalSince1970: try row.column("issued_at")),
            expiresAt: Date(timeIntervalSince1970: try row.column("expires_at")))
    }
}
