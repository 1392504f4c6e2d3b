public import FieldpassDomain
public import Foundation
import PostgresNIO
import Tokens

extension PostgresStore {
    public func confirmation(loginID: String, now: Date) async throws -> DeviceConfirmation? {
        try await read { connection in
            guard let row = try await Self.fetchConfirmationRow(connection, loginID: loginID) else { return nil }
            return DeviceConfirmation(
                deviceName: try row.get("name"), platform: try row.get("platform"),
                registeredAt: Date(timeIntervalSince1970: try row.get("created_at")), userCode: try row.get("user_code"),
                csrfToken: try row.get("csrf_token"), isUsable: try Self.isUsable(row, now: now)
            )
        }
    }

    public func confirmDevice(loginID: String, csrfToken: String, browserBinding: String, now: Date) async throws -> ConfirmationOutcome {
        try await write { connection in
            // Locks the session, then reads it: of two confirmations at once, the second sees the
            // first one's and is `.used`, so the login link works once.
            guard try await connection.value(
                "SELECT id FROM sessions WHERE login_id = \(loginID) FOR UPDATE", as: String.self
            ) != nil,
                let row = try await Self.fetchConfirmationRow(connection, loginID: loginID)
            else { return .unknown }
            guard try Self.isUsable(row, now: now) else { return .used }
            let expected: String = try row.get("csrf_token")
            guard Crypto.constantTimeEquals(Array(csrfToken.utf8), Array(expected.utf8)) else { return .forged }
            let id: String = try row.get("id")
            try await connection.execute(
                "UPDATE sessions SET confirmed_at = \(now.timeIntervalSince1970), browser_binding = \(browserBinding) WHERE id = \(id)"
            )
            guard let session = try await Self.fetchSession(connection, id: id) else { return .unknown }
            return .confirmed(session, state: try row.get("state"))
        }
    }

    private static func fetchConfirmationRow(_ connection: PostgresConnection, loginID: String) async throws -> PostgresRandomAccessRow? {
        try await connection.first(
            """
            SELECT s.id, s.state, s.status, s.user_code, s.csrf_token, s.confirmed_at, s.created_at, s.expires_at,
                   d.name, d.platform
            FROM sessions s JOIN devices d ON d.id = s.device_id WHERE s.login_id = \(loginID)
            """
        )
    }

    /// Still pending, unconfirmed and unexpired.
    private static func isUsable(_ row: PostgresRandomAccessRow, now: Date) throws -> Bool {
        let status: String = try row.get("status")
        let confirmedAt: Double? = try row.get("confirmed_at")
        let expiresAt: Double = try row.get("expires_at")
        return status == OnboardingSession.Status.pending.rawValue && confirmedAt == nil
            && expiresAt > now.timeIntervalSince1970
    }
}
