import Synchronization
import Testing
@testable import FieldpassStorage

@Suite("The feed publisher: one run at a time, and a waiter served by a run that began after it asked")
struct FeedPublisherTests {
    /// Counts the runs and holds each until let go, so that a request can arrive mid-run.
    final class Runs: Sendable {
        let finished = Mutex(0)
        let gate = AsyncStream<Void>.makeStream()

        func run(_ feed: PostgresFeed) async {
            var iterator = gate.stream.makeAsyncIterator()
            _ = await iterator.next()
            finished.withLock { $0 += 1 }
        }
    }

    @Test func aWaiterWhoAsksDuringARunWaitsForTheRunAfterIt() async throws {
        let publisher = FeedPublisher()
        let runs = Runs()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await publisher.work.run() }
            publisher.request(.sessionEvents, publish: runs.run)
            // The first run is under way (held at the gate); this request must wait for a second.
            group.addTask {
                await publisher.publishAndWait(.sessionEvents, publish: runs.run)
                #expect(runs.finished.withLock { $0 } == 2, "served by the run after the one under way")
            }
            try await Task.sleep(for: .milliseconds(50))
            #expect(runs.finished.withLock { $0 } == 0)
            runs.gate.continuation.yield()
            runs.gate.continuation.yield()
            try await group.next()
            publisher.work.finish()
            try await group.waitForAll()
        }
        // Nothing runs after shutdown: a waiter returns at once.
        await publisher.publishAndWait(.sessionEvents, publish: runs.run)
        #expect(runs.finished.withLock { $0 } == 2)
    }
}
