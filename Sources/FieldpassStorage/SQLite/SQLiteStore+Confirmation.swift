public import FieldpassDomain
public import Foundation
import GRDB
import Tokens

extension SQLiteStore {
    public func confirmation(loginID: String, now: Date) async throws -> DeviceConfirmation? {
        try await read { db in
            guard let row = try Self.fetchConfirmationRow(db, loginID: loginID) else { return nil }
            return DeviceConfirmation(
                deviceName: row["name"], platform: row["platform"],
                registeredAt: Date(timeIntervalSince1970: row["created_at"]), userCode: row["user_code"],
                csrfToken: row["csrf_token"],
                isUsable: ConfirmationRules.isUsable(Self.confirmationSession(row), now: now.timeIntervalSince1970)
            )
        }
    }

    public func confirmDevice(loginID: String, csrfToken: String, browserBinding: String, now: Date) async throws -> ConfirmationOutcome {
        try await write { db in
            let row = try Self.fetchConfirmationRow(db, loginID: loginID)
            switch ConfirmationRules.decide(row.map(Self.confirmationSession), csrfToken: csrfToken, now: now.timeIntervalSince1970) {
            case .unknown: return .unknown
            case .used: return .used
            case .forged: return .forged
            case .confirm(let id, let state):
                try db.execute(
                    cached: OnboardingStatements.confirm.sqlite, arguments: [now.timeIntervalSince1970, browserBinding, id])
                guard let session = try Self.fetchSession(db, id: id) else { return .unknown }
                try Self.countOutcome(.confirmed, environmentID: session.environmentID, db: db, now: now.timeIntervalSince1970)
                return .confirmed(session, state: state)
            }
        }
    }

    private static func fetchConfirmationRow(_ db: Database, loginID: String) throws -> Row? {
        try Row.fetchOne(db.cachedStatement(sql: OnboardingStatements.confirmation.sqlite), arguments: [loginID])
    }

    private static func confirmationSession(_ row: Row) -> ConfirmationRules.Session {
        ConfirmationRules.Session(
            id: row["id"], state: row["state"], status: OnboardingSession.Status(rawValue: row["status"]), csrfToken: row["csrf_token"],
            confirmedAt: row["confirmed_at"], expiresAt: row["expires_at"]
        )
    }
}
