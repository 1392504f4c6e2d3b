import Testing
@testable import Fieldpass
import StoreTestSupport

@Suite("Readiness at shutdown", .hangGuard)
struct ReadinessTests {
    @Test func theShutdownWaitsForOpenSocketsToCloseButNoLongerThanItsLimit() async throws {
        let readiness = Readiness()
        let (closing, close) = AsyncStream.makeStream(of: Void.self)
        let socket = Task {
            await readiness.holdingSocket {
                await readiness.untilStopping()
                for await _ in closing { break }
            }
        }
        try await Task.sleep(for: .milliseconds(20))
        #expect(!readiness.isStopping)
        readiness.markStopping()
        // The socket heard it, but has not closed yet: the wait ends at its limit, unfulfilled.
        #expect(await readiness.socketsClosed(within: .milliseconds(100)) == false)
        close.yield()
        await socket.value
        // Closed: the wait ends at once (a wait for its hour would meet the suite's hang guard).
        #expect(await readiness.socketsClosed(within: .seconds(3600)))
    }

    /// A socket that ends for another reason stops waiting for the stop.
    @Test func waitingForTheStopEndsWithItsTask() async {
        let readiness = Readiness()
        let waiting = Task { await readiness.untilStopping() }
        waiting.cancel()
        await waiting.value
        #expect(!readiness.isStopping)
    }
}
