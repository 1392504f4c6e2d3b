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
