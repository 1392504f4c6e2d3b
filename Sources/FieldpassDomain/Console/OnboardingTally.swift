/// The counts of an ``OnboardingSummary``, summed from the stored outcome rows of its span:
/// an outcome this version does not know is left out, and a failure stored without a reason
/// counts as `other`.
package struct OnboardingTally: Sendable, Equatable {
    package private(set) var counts: [OnboardingOutcome: Int] = [:]
    package private(set) var failures: [String: Int] = [:]

    package init() {}

    /// Adds `count` rows of `outcome`, stored with `reason`.
    package mutating func add(outcome: String, reason: String?, count: Int) {
        guard let outcome = OnboardingOutcome(rawValue: outcome) else { return }
        counts[outcome, default: 0] += count
        if outcome == .failed { failures[reason ?? "other", default: 0] += count }
    }

    /// The summary of these counts with the people waiting for their data.
    package func summary(waitingForData: [PersonSummary]) -> OnboardingSummary {
        OnboardingSummary(counts: counts, failures: failures, waitingForData: waitingForData)
    }
}
