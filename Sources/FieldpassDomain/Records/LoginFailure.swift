/// How a sign-in failed, as its session's `login_failed` event and the onboarding counts
/// record it.
public struct LoginFailure: Sendable, Equatable {
    /// The event's `error`: the IdP's code, or Fieldpass's own (`browser_mismatch`, …).
    public var error: String
    /// The event's `error_description`, for a person to read.
    public var description: String
    /// Whether the refusal goes into the audit log too (a refused attack).
    public var audited: Bool

    public init(error: String, description: String, audited: Bool) {
        self.error = error
        self.description = description
        self.audited = audited
    }
}

/// A callback's state taken and its session failed in one transaction (see
/// ``OnboardingStore/refuseState(_:now:failure:)``).
public struct RefusedSignIn: Sendable {
    /// The session the state belonged to, as it was taken.
    public var session: OnboardingSession
    /// The `login_failed` event stored, or none when the session had ended meanwhile.
    public var events: [StoredEvent]

    public init(session: OnboardingSession, events: [StoredEvent]) {
        self.session = session
        self.events = events
    }
}
