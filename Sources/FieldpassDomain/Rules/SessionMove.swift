/// Sessions moved together by one transition, and what each one that moves counts and stores.
/// A store applies it as one conditional update of the selected sessions in a state the
/// transition leaves (a session another change moved first is left alone), then counts each
/// moved session's outcomes and appends its events, sessions in ``eventOrder(_:id:)``.
package struct SessionMove: Sendable, Equatable {
    package var selection: SessionSelection
    /// When it happens: what the selection's expiries are compared with, and the time of its
    /// counts and events.
    package var at: Double
    package var transition: SessionTransition
    /// Counted once for each moved session, in order.
    package var outcomes: [OnboardingOutcome]
    /// Why, with the outcomes: a failure's ``LoginFailureReason`` label.
    package var reason: String?
    /// Appended to each moved session, in order.
    package var events: [SessionEvent]

    package init(
        _ selection: SessionSelection, at time: Double, by transition: SessionTransition, counting outcomes: [OnboardingOutcome],
        reason: String? = nil, storing events: [SessionEvent]
    ) {
        self.selection = selection
        self.at = time
        self.transition = transition
        self.outcomes = outcomes
        self.reason = reason
        self.events = events
    }

    /// The order in which sessions moved together get their events, and so their feed
    /// positions: by id, whatever order the update met them in, the same in every store.
    package static func eventOrder<Session>(_ sessions: [Session], id: (Session) -> String) -> [Session] {
        sessions.sorted { id($0) < id($1) }
    }
}
