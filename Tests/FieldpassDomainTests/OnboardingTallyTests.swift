import Testing
@testable import FieldpassDomain

@Suite("Onboarding tally, without a database")
struct OnboardingTallyTests {
    @Test func failuresAreCountedByReasonAndUnknownOutcomesLeftOut() {
        var tally = OnboardingTally()
        tally.add(outcome: "registered", reason: nil, count: 4)
        tally.add(outcome: "failed", reason: "access_denied", count: 2)
        tally.add(outcome: "failed", reason: nil, count: 1)
        tally.add(outcome: "failed", reason: "access_denied", count: 1)
        tally.add(outcome: "teleported", reason: nil, count: 9)
        let summary = tally.summary(waitingForData: [])
        #expect(summary.counts == [.registered: 4, .failed: 4])
        #expect(summary.failures == ["access_denied": 3, "other": 1])
        #expect(summary.count(.signedIn) == 0)
    }
}
