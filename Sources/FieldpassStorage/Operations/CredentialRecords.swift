import FieldpassDomain
import Foundation

// The records of credentials read from rows, decoded once for both stores (``StoredRow``).

extension RefreshRules.Token {
    /// A row of ``RefreshTokenStatements/token``.
    init(row: some StoredRow) throws {
        self.init(
            grant: RefreshGrant(
                userID: try row.column("user_id"), deviceID: try row.column("device_id"), environmentID: try row.column("environment_id"),
                dpopThumbprint: try row.column("dpop_jkt"), shift: try ShiftRecord(refreshTokenRow: row)),
            createdAt: try row.column("created_at"), expiresAt: try row.column("expires_at"),
            maxExpiresAt: try row.column("max_expires_at"),
            revokedAt: try row.column("revoked_at"), rotatedAt: try row.column("rotated_at"),
            successorHash: try row.column("successor_hash"),
            successorSealed: try row.column("successor_sealed", as: Data?.self).map { [UInt8]($0) },
            userDisabledAt: try row.column("disabled_at"), deviceRevokedAt: try row.column("device_revoked_at"),
            deviceLastSeenAt: try row.column("device_last_seen_at"))
    }
}

extension ShiftRecord {
    /// The shift a refresh token's row joined (``ShiftTables/refreshColumns``), if its device is a shift's.
    init?(refreshTokenRow row: some StoredRow) throws {
        guard let deviceID = try row.column("shift_device_id", as: String?.self) else { return nil }
        self.init(
            id: try row.column("device_id"), sharedDeviceID: deviceID, userID: try row.column("user_id"),
            email: try row.column("shift_email"), startedAt: Date(timeIntervalSince1970: try row.column("shift_started_at")),
            endedAt: try row.column("shift_ended_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            endReason: try row.column("shift_end_reason", as: String?.self).flatMap(ShiftEndReason.init(rawValue:)),
            amr: ShiftTables.amr(try row.column("shift_amr")))
    }
}

extension DeviceRecord {
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), userID: try row.column("user_id"), name: try row.column("name"), platform: try row.column("platform"),
            createdAt: Date(timeIntervalSince1970: try row.column("created_at")),
            lastSeenAt: Date(timeIntervalSince1970: try row.column("last_seen_at")),
            signedInAt: try row.column("signed_in_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            revokedAt: try row.column("revoked_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)))
    }
}

extension AccessFacts {
    /// A row of ``SignInStatements/accessFacts``.
    init(row: some StoredRow) throws {
        let teams: [String] = try row.column("team_ids")
        let names: [String] = try row.column("team_names")
        let paths: [String] = try row.column("grant_paths")
        let levels: [String] = try row.column("grant_access")
        var grants: [String: RealmAccess] = [:]
        for (path, level) in zip(paths, levels) {
            if let access = RealmAccess(rawValue: level) { grants[path] = access }
        }
        self.init(
            user: try UserRecord(row: row), teams: teams, grants: grants,
            teamNames: Dictionary(zip(teams, names), uniquingKeysWith: { first, _ in first }))
    }
}

extension SignInRules.User {
    /// A row of ``UserStatements/signingIn``, of the person `id`.
    init(id: String, row: some StoredRow) throws {
        self.init(
            id: id, role: try row.column("role"), issuer: try row.column("idp_issuer"), subject: try row.column("idp_subject"),
            disabled: try row.column("disabled_at", as: Double?.self) != nil,
            signedInBefore: try row.column("signed_in_at", as: Double?.self) != nil)
    }
}

extension SignInRules.Team {
    init(row: some StoredRow) throws {
        self.init(id: try row.column("id"), name: try row.column("name"))
    }
}
