import FieldpassDomain
import GRDB

extension SessionSelection {
    /// The condition on `sessions`, with `?` placeholders bound by ``arguments(at:)``.
    var condition: String {
        switch self {
        case .session: "id = ?"
        case .unexpiredSession: "id = ? AND expires_at > ?"
        case .person: "user_id = ?"
        case .unexpiredOfPerson: "user_id = ? AND expires_at > ?"
        case .overdue: "expires_at <= ?"
        case .callback: "state = ? AND state_used = 0 AND expires_at > ? AND (login_id IS NULL OR confirmed_at IS NOT NULL)"
        }
    }

    /// What the condition's placeholders bind, for a move at `now`.
    func arguments(at now: Double) -> StatementArguments {
        switch self {
        case .session(let id): [id]
        case .unexpiredSession(let id): [id, now]
        case .person(let userID): [userID]
        case .unexpiredOfPerson(let userID): [userID, now]
        case .overdue: [now]
        case .callback(let state): [state, now]
        }
    }
}
