public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    public func confirmation(loginID: String, now: Date) async throws -> DeviceConfirmation? {
        try await read { connection in
            guard let row = try await Self.fetchConfirmationRow(connection, loginID: loginID) else { return nil }
            return DeviceConfirmation(
                deviceName: try row.get("name"), platform: try row.get("platform"),
                registeredAt: Date(timeIntervalSince1970: try row.get("created_at")), userCode: try row.get("user_code"),
                csrfToken: try row.get("csrf_token"),
                isUsable: ConfirmationRules.isUsable(try Self.confirmationSession(row), now: now.timeIntervalSince1970)
            )
        }
    }

    public func confirmDevice(loginID: String, csrfToken: String, browserBinding: String, now: Date) async throws -> ConfirmationOutcome {
        try await write { connection in
            // Locks the session, then reads it: of two confirmations at once, the second sees the
            // first one's and is `.used`, so the login link works once.
            let locked =
                try await connection.value(
                    "SELECT id FROM sessions WHERE login_id = \(loginID) FOR UPDATE", as: String.self
                ) != nil
            let row = locked ? try await Self.fetchConfirmationRow(connection, loginID: loginID) : nil
            switch ConfirmationRules.decide(try row.map(Self.confirmationSession), csrfToken: csrfToken, now: now.timeIntervalSince1970) {
            case .unknown: return .unknown
            case .used: return .used
            case .forged: return .forged
            case .confirm(let id, let state):
                try await connection.execute(PostgresQuery(OnboardingStatements.confirm, now.timeIntervalSince1970, browserBinding, id))
                guard let session = try await Self.fetchSession(connection, id: id) else { return .unknown }
                try await connection.execute(
                    PostgresQuery(
                        OnboardingStatements.countOutcome, session.environmentID, OnboardingOutcome.confirmed.rawValue, nil,
                        now.timeIntervalSince1970))
                return .confirmed(session, state: state)
            }
        }
    }

    private static func fetchConfirmationRow(_ connection: PostgresConnection, loginID: String) async throws -> PostgresRandomAccessRow? {
        try await connection.first(PostgresQuery(OnboardingStatements.confirmation, loginID))
    }

    private static func confirmationSession(_ row: PostgresRandomAccessRow) throws -> ConfirmationRules.Session {
        ConfirmationRules.Session(
            id: try row.get("id"), state: try row.get("state"), status: OnboardingSession.Status(rawValue: try row.get("status")),
            csrfToken: try row.get("csrf_token"), confirmedAt: try row.get("confirmed_at"), expiresAt: try row.get("expires_at")
        )
    }
}
