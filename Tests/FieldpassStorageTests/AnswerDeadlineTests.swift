import Synchronization
import Testing
@testable import FieldpassStorage
import StoreTestSupport

/// A shared transaction is unanswered when one of its changes waits the whole timeout, not
/// when the batch as a whole takes longer than that.
@Suite("Answer deadline", .hangGuard)
struct AnswerDeadlineTests {
    /// Each answered part moves the deadline a whole timeout on from the answer.
    @Test func eachAnswerGivesTheNextPartTheWholeTimeoutAgain() async throws {
        let deadline = AnswerDeadline(timeout: .seconds(60))
        let first = deadline.due
        try await Task.sleep(for: .milliseconds(20))
        let answered = ContinuousClock.now
        deadline.answered()
        #expect(deadline.due >= answered + .seconds(60))
        #expect(deadline.due > first)
    }

    /// The watch answers a waiter whose deadline passed, and only that one.
    @Test func theWatchAnswersOnlyWaitersWhoseDeadlinePassed() async throws {
        let watch = DeadlineWatch(every: .milliseconds(10))
        let late = Waiter(AnswerDeadline(timeout: .zero))
        let early = Waiter(AnswerDeadline(timeout: .seconds(60)))
        let tickets = [watch.watch(late), watch.watch(early)]
        let started = ContinuousClock.now
        while !late.passed, ContinuousClock.now - started < .seconds(10) {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(late.passed)
        #expect(!early.passed)
        for ticket in tickets { watch.forget(ticket) }
    }

    /// A caller cancelled before it asks is answered so, and its operation never runs.
    @Test func aCallerCancelledBeforeItAsksRunsNothing() async throws {
        let ran = Atomic(false)
        let caller = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await AnswerDeadline(timeout: .seconds(60)).race {
                ran.store(true, ordering: .relaxed)
                return 1
            }
        }
        await #expect(throws: CancellationError.self) { try await caller.value }
        let operationRan = ran.load(ordering: .relaxed)
        #expect(!operationRan)
    }

    /// A caller cancelled while its operation never resumes is answered at once.
    @Test func aCancelledCallerIsAnsweredWithoutItsOperation() async throws {
        let parked = Parked()
        let caller = Task {
            try await AnswerDeadline(timeout: .seconds(60)).race {
                await parked.wait()
                return 1
            }
        }
        try await Task.sleep(for: .milliseconds(50))
        caller.cancel()
        // Waiting for the operation would hang here (the suite's guard fails it); the 60 s
        // deadline would answer nil, not this.
        await #expect(throws: CancellationError.self) { try await caller.value }
        #expect(!parked.finished, "the operation was waited for")
        parked.release()
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

/// A caller of an operation that only notes that its deadline passed.
private final class Waiter: DeadlineWatch.Waiter {
    let deadline: AnswerDeadline
    private let answered = Atomic(false)
    var passed: Bool { answered.load(ordering: .relaxed) }

    init(_ deadline: AnswerDeadline) {
        self.deadline = deadline
    }

    func deadlinePassed() {
        answered.store(true, ordering: .relaxed)
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
