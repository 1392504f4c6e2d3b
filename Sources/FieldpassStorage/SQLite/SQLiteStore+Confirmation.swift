public import FieldpassDomain
public import Foundation
import GRDB
import Tokens

extension SQLiteStore {
    public func confirmation(loginID: String, now: Date) async throws -> DeviceConfirmation? {
        try await pool.read { db in
            guard let row = try Self.fetchConfirmationRow(db, loginID: loginID) else { return nil }
            return DeviceConfirmation(
                deviceName: row["name"], platform: row["platform"],
                registeredAt: Date(timeIntervalSince1970: row["created_at"]), userCode: row["user_code"],
                csrfToken: row["csrf_token"], isUsable: Self.isUsable(row, now: now)
            )
        }
    }

    public func confirmDevice(loginID: String, csrfToken: String, browserBinding: String, now: Date) async throws -> ConfirmationOutcome {
        try await write { db in
            guard let row = try Self.fetchConfirmationRow(db, loginID: loginID) else { return .unknown }
            guard Self.isUsable(row, now: now) else { return .used }
            guard Crypto.constantTimeEquals(Array(csrfToken.utf8), Array((row["csrf_token"] as String).utf8)) else {
                return .forged
            }
            let id: String = row["id"]
            try db.execute(
                cached: "UPDATE sessions SET confirmed_at = ?, browser_binding = ? WHERE id = ?",
                arguments: [now.timeIntervalSince1970, browserBinding, id]
            )
            guard let session = try Self.fetchSession(db, id: id) else { return .unknown }
            return .confirmed(session, state: row["state"])
        }
    }

    private static func fetchConfirmationRow(_ db: Database, loginID: String) throws -> Row? {
        try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT s.id, s.state, s.status, s.user_code, s.csrf_token, s.confirmed_at, s.created_at, s.expires_at,
                       d.name, d.platform
                FROM sessions s JOIN devices d ON d.id = s.device_id WHERE s.login_id = ?
                """),
            arguments: [loginID]
        )
    }

    private static func isUsable(_ row: Row, now: Date) -> Bool {
        row["status"] == OnboardingSession.Status.pending.rawValue && row["confirmed_at"] as Double? == nil
            && (row["expires_at"] as Double) > now.timeIntervalSince1970
    }
}
