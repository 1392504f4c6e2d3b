import Synchronization
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

    /// PostgresNIO can lose a statement written to a connection that just closed; its caller
    /// then waits on a promise nothing fulfils, cancelled or not. The deadline still answers.
    @Test func anOperationThatNeverResumesIsAnsweredAtItsDeadline() async throws {
        let parked = Parked()
        let started = ContinuousClock.now
        let answer = try await AnswerDeadline(timeout: .milliseconds(100)).race {
            await parked.wait()
            return 1
        }
        #expect(answer == nil)
        #expect(ContinuousClock.now - started >= .milliseconds(100))
        #expect(!parked.finished, "the operation was waited for")
        parked.release()
    }

    @Test func anOperationAnsweredInTimeGivesItsValue() async throws {
        #expect(try await AnswerDeadline(timeout: .seconds(60)).race { 7 } == 7)
    }
}

/// An operation suspended until the test releases it, deaf to cancellation.
private final class Parked: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, Never>?
        var released = false
        var finished = false
    }
    private let state = Mutex(State())

    var finished: Bool { state.withLock { $0.finished } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let releasedAlready = state.withLock { state in
                state.continuation = continuation
                return state.released
            }
            if releasedAlready { release() }
        }
        state.withLock { $0.finished = true }
    }

    func release() {
        let continuation = state.withLock { state in
            state.released = true
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume()
    }
}
