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
    /// The session a sign-in callback's `state` names, while its state is unused, it has not
    /// expired, and its device is confirmed when it is to be. Moving it uses the state up: a
    /// callback's state works once.
    case callback(state: String)

    /// Whether moving the selected session uses its callback's state up.
    package var usesState: Bool {
        if case .callback = self { true } else { false }
    }
}
