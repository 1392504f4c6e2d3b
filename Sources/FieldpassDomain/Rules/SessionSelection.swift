/// Which sessions a ``SessionMove`` may move, at the move's time: a store turns it into its
/// update's condition, to which it adds the transition's states.
package enum SessionSelection: Sendable, Equatable {
    /// The session, whatever its expiry: a failure ends it even as it expires.
    case session(id: String)
    /// The session, while it has not expired.
    case unexpiredSession(id: String)
    /// Every session of the person.
    case person(userID: String)
    /// The person's sessions that have not expired.
    case unexpiredOfPerson(userID: String)
    /// Every session whose expiry has come.
    case overdue
}
