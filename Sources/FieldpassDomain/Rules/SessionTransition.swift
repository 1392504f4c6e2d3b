/// A move of an onboarding session between states: the stores apply it as a conditional
/// update (`… WHERE status IN from`), so a transition that lost a race changes nothing.
package struct SessionTransition: Sendable, Equatable {
    package let from: [OnboardingSession.Status]
    package let to: OnboardingSession.Status

    package init(from: [OnboardingSession.Status], to: OnboardingSession.Status) {
        self.from = from
        self.to = to
    }

    /// The states it leaves, as stored.
    package var fromValues: [String] { from.map(\.rawValue) }

    /// This move and `next` as one, from this one's states to `next`'s end: a sign-in into a
    /// filled realm completes at once.
    package func then(_ next: SessionTransition) -> SessionTransition {
        SessionTransition(from: from, to: next.to)
    }
}
