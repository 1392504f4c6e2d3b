/// A callback's state taken and its session failed in one transaction (see
/// ``OnboardingStore/refuseState(_:now:failure:)``).
public struct RefusedSignIn: Sendable {
    /// The session the state belonged to, as it was taken.
    public var session: OnboardingSession
    /// The failure decided for it, as stored.
    public var failure: LoginFailure
    /// The `login_failed` event stored, or none when the session had ended meanwhile.
    public var events: [StoredEvent]

    public init(session: OnboardingSession, failure: LoginFailure, events: [StoredEvent]) {
        self.session = session
        self.failure = failure
        self.events = events
    }
}
