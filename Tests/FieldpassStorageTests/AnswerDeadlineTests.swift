import Testing
@testable import FieldpassStorage
import StoreTestSupport

/// A shared transaction is unanswered when one of its changes waits the whole timeout, not
/// when the batch as a whole takes longer than that.
@Suite("Answer deadline")
struct AnswerDeadlineTests {
    @Test func anOperationNeverAnsweredPassesItsDeadlineAfterTheTimeout() async throws {
        let started = ContinuousClock.now
        try await AnswerDeadline(timeout: .milliseconds(100)).passed()
        #expect(ContinuousClock.now - started >= .milliseconds(100))
    }

    @Test func eachAnswerGivesTheNextPartTheWholeTimeoutAgain() async throws {
        let deadline = AnswerDeadline(timeout: .milliseconds(300))
        try await Task.sleep(for: .milliseconds(200))
        deadline.answered()
        let answered = ContinuousClock.now
        try await deadline.passed()
        #expect(ContinuousClock.now - answered >= .milliseconds(300))
    }
}
