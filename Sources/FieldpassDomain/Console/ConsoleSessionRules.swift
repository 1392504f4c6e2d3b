package import Foundation

/// A console session's life, decided once for both stores on the session as stored and its
/// person as stored now. A session answers until its idle end and its absolute end, while its
/// person is of its environment and not disabled; each request it answers moves its idle end
/// `idleTimeout` later, never past its absolute end. A session that no longer answers is over
/// for good: the store deletes it.
package enum ConsoleSessionRules {
    package enum Decision: Equatable {
        /// The session answers, its idle end moved, for its person.
        case answer(ConsoleSession, person: UserRecord)
        /// The session is over.
        case end
    }

    /// `person` is the person of the session's `userID`, if there is one.
    package static func check(_ session: ConsoleSession, person: UserRecord?, now: Date, idleTimeout: TimeInterval) -> Decision {
        guard now < session.idleExpiresAt, now < session.expiresAt, let person, person.id == session.userID,
            person.environmentID == session.environmentID, !person.disabled
        else { return .end }
        var moved = session
        moved.idleExpiresAt = min(session.expiresAt, now.addingTimeInterval(idleTimeout))
        return .answer(moved, person: person)
    }
}
