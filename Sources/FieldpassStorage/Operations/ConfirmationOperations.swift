public import FieldpassDomain
public import Foundation

/// The confirmation page of a login link (``ConfirmationRules``).
extension TransactionalStore {
    public func confirmation(loginID: String, now: Date) async throws -> DeviceConfirmation? {
        try await reading { transaction in
            guard let row = try await transaction.first(OnboardingStatements.confirmation, loginID) else { return nil }
            return DeviceConfirmation(
                deviceName: try row.column("name"), platform: try row.column("platform"),
                registeredAt: Date(timeIntervalSince1970: try row.column("created_at")), userCode: try row.column("user_code"),
                csrfToken: try row.column("csrf_token"),
                isUsable: ConfirmationRules.isUsable(try ConfirmationRules.Session(row: row), now: now.timeIntervalSince1970))
        }
    }

    public func confirmDevice(loginID: String, csrfToken: String, browserBinding: String, now: Date) async throws -> ConfirmationOutcome {
        try await writing { transaction in
            // Locks the session, then reads it: of two confirmations at once, the second sees the
            // first one's and is `.used`, so the login link works once.
            var session: ConfirmationRules.Session?
            if try await transaction.value(OnboardingStatements.sessionOfLogin, loginID, as: String.self, locking: .sessions) != nil {
                session = try await transaction.first(OnboardingStatements.confirmation, loginID).map(ConfirmationRules.Session.init(row:))
            }
            switch ConfirmationRules.decide(session, csrfToken: csrfToken, now: now.timeIntervalSince1970) {
            case .unknown: return .unknown
            case .used: return .used
            case .forged: return .forged
            case .confirm(let id, let state):
                try await transaction.execute(OnboardingStatements.confirm, now.timeIntervalSince1970, browserBinding, id)
                guard let confirmed = try await transaction.session(id: id) else { return .unknown }
                try await transaction.execute(
                    OnboardingStatements.countOutcome, confirmed.environmentID, OnboardingOutcome.confirmed.rawValue, nil,
                    now.timeIntervalSince1970)
                return .confirmed(confirmed, state: state)
            }
        }
    }
}
