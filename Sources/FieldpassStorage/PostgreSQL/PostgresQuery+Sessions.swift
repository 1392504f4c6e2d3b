import FieldpassDomain
import PostgresNIO

extension PostgresQuery.StringInterpolation {
    /// The condition on `sessions` that `selection` stands for in a move at `now`, its values
    /// bound in place.
    mutating func appendInterpolation(_ selection: SessionSelection, at now: Double) {
        switch selection {
        case .session(let id), .unexpiredSession(let id):
            appendLiteral("id = ")
            appendInterpolation(id)
        case .person(let userID), .unexpiredOfPerson(let userID):
            appendLiteral("user_id = ")
            appendInterpolation(userID)
        case .overdue:
            appendLiteral("expires_at <= ")
            appendInterpolation(now)
        case .callback(let state):
            appendLiteral("state = ")
            appendInterpolation(state)
            appendLiteral(" AND NOT state_used AND expires_at > ")
            appendInterpolation(now)
            appendLiteral(" AND (login_id IS NULL OR confirmed_at IS NOT NULL)")
        }
        if case .unexpiredSession = selection { appendUnexpired(at: now) }
        if case .unexpiredOfPerson = selection { appendUnexpired(at: now) }
    }

    private mutating func appendUnexpired(at now: Double) {
        appendLiteral(" AND expires_at > ")
        appendInterpolation(now)
    }
}
