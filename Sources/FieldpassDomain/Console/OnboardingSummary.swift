/// Onboarding in an environment over a recent span, as the console's Onboarding page shows it.
public struct OnboardingSummary: Sendable, Equatable {
    /// What a session reached; each is counted when it happens (``OnboardingOutcome``).
    public var counts: [OnboardingOutcome: Int]
    /// Failed sign-ins by reason (``LoginFailureReason`` labels: a fixed list plus `other`).
    public var failures: [String: Int]
    /// People who completed a sign-in whose personal realm is not initialized yet, longest
    /// waiting first, at most the limit asked for.
    public var waitingForData: [PersonSummary]

    public init(counts: [OnboardingOutcome: Int], failures: [String: Int], waitingForData: [PersonSummary]) {
        self.counts = counts
        self.failures = failures
        self.waitingForData = waitingForData
    }

    public func count(_ outcome: OnboardingOutcome) -> Int { counts[outcome] ?? 0 }
}

/// A step of onboarding the store counts as it happens, kept for a day and a bit.
public enum OnboardingOutcome: String, Sendable, CaseIterable {
    case registered
    case confirmed
    case signedIn = "signed_in"
    case dataReady = "data_ready"
    case expired
    case failed
}
