import FieldpassDomain
import Foundation

/// The console's tables, the same in both stores but for the type of a time (`REAL` seconds
/// in SQLite, `DOUBLE PRECISION` in PostgreSQL).
///
/// `onboarding_outcomes` is an append-only tally: a row each time a session reaches a step,
/// written in the step's own transaction and kept a little over a day, because sessions
/// themselves are deleted an hour after they end (`sessions.retention`).
enum ConsoleTables {
    static func sql(real: String) -> String {
        """
        CREATE TABLE console_signins (
            state_hash TEXT PRIMARY KEY,
            environment_id TEXT NOT NULL,
            email TEXT NOT NULL,
            nonce TEXT NOT NULL,
            code_verifier TEXT NOT NULL,
            browser_binding TEXT NOT NULL,
            expires_at \(real) NOT NULL
        );
        CREATE INDEX console_signins_expiry ON console_signins(expires_at);
        CREATE TABLE console_sessions (
            id_hash TEXT PRIMARY KEY,
            user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
            environment_id TEXT NOT NULL,
            created_at \(real) NOT NULL,
            expires_at \(real) NOT NULL,
            idle_expires_at \(real) NOT NULL
        );
        CREATE INDEX console_sessions_user ON console_sessions(user_id);
        CREATE TABLE onboarding_outcomes (
            environment_id TEXT NOT NULL,
            outcome TEXT NOT NULL,
            reason TEXT,
            at \(real) NOT NULL
        );
        CREATE INDEX onboarding_outcomes_environment ON onboarding_outcomes(environment_id, at);
        CREATE INDEX onboarding_outcomes_at ON onboarding_outcomes(at);
        """
    }

    /// A console session whose person is disabled: dead whatever its ends say. Disabling
    /// deletes the person's sessions; this catches one a sign-in created as the disabling ran.
    static let disabledPerson = "user_id IN (SELECT id FROM users WHERE disabled_at IS NOT NULL)"

    /// How long outcome rows are kept: the console shows the last 24 hours.
    static let outcomeRetention: Double = 25 * 3600

    /// The People page's conditions on `u` (users) and `s` (scim_users, left-joined), each value
    /// bound through `bind` (``BuiltStatement``).
    static func peopleConditions(_ query: PeopleQuery, bind: (any StoredValue) -> String) -> String {
        var conditions: [String] = []
        if let search = query.search {
            let pattern =
                "%"
                + search.lowercased().replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
            conditions.append(
                "(u.email LIKE \(bind(pattern)) ESCAPE '\\' OR lower(COALESCE(s.display_name, '')) LIKE \(bind(pattern)) ESCAPE '\\')")
        }
        if let role = query.role {
            conditions.append("u.role = \(bind(role.rawValue))")
        }
        if let teamID = query.teamID {
            conditions.append("EXISTS (SELECT 1 FROM team_members m WHERE m.user_id = u.id AND m.team_id = \(bind(teamID)))")
        }
        switch query.status {
        case .disabled?: conditions.append("u.disabled_at IS NOT NULL")
        case .active?: conditions.append("u.disabled_at IS NULL AND u.signed_in_at IS NOT NULL")
        case .notSignedIn?: conditions.append("u.disabled_at IS NULL AND u.signed_in_at IS NULL")
        case nil: break
        }
        return conditions.map { " AND " + $0 }.joined()
    }

    /// The audit filter's conditions (on `audit_log`), the same way.
    static func auditConditions(_ filter: AuditFilter, bind: (any StoredValue) -> String) -> String {
        var conditions: [String] = []
        if let actor = filter.actor {
            conditions.append("actor = \(bind(actor))")
        }
        if let action = filter.action {
            conditions.append("action = \(bind(action))")
        }
        if let personID = filter.personID {
            // Ids are letters, digits and dashes, so the JSON text of `"user":"<id>"` (a membership change's) is exact.
            let named = "%\"user\":\"\(personID.filter { $0.isLetter || $0.isNumber || $0 == "-" })\"%"
            conditions.append("(target = \(bind("user:" + personID)) OR after LIKE \(bind(named)) OR before LIKE \(bind(named)))")
        }
        return conditions.map { " AND " + $0 }.joined()
    }
}
