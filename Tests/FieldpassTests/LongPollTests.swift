import Synchronization
import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("Long-polls")
struct LongPollTests {
    /// A store whose safety net never comes within a test: only signals wake a poll.
    struct Changes: StoreChanges {
        let sessionEvents = ChangeSignal()
        let committedEvents = CommittedEvents()
        let realmFeed = ChangeSignal()
        var safetyNetInterval: Duration { .seconds(3600) }
        var revocations: LiveRevocations? { nil }
    }

    /// Counts the reads of a poll; from the read after `news()`, finds one entry.
    final class Feed: Sendable {
        private let state = Mutex((reads: 0, hasNews: false))
        var reads: Int { state.withLock { $0.reads } }

        func news() { state.withLock { $0.hasNews = true } }

        func read() -> [Int] {
            state.withLock { state in
                state.reads += 1
                return state.hasNews ? [state.reads] : []
            }
        }

        /// Returns once the poll has read `count` times.
        func waitForReads(_ count: Int) async {
            while reads < count { await Task.yield() }
        }
    }

    let changes = Changes()
    let readiness = Readiness()
    let feed = Feed()

    @Test("a waiting poll reads again only when its signal comes, and answers what it finds then")
    func wokenBySignalAlone() async throws {
        let poll = LongPoll(store: changes, readiness: readiness)
        async let entries = poll.entries(wait: 30, signal: changes.realmFeed) { feed.read() }
        await feed.waitForReads(1)
        changes.sessionEvents.signal()  // another feed's signal is not this poll's
        feed.news()
        changes.realmFeed.signal()
        #expect(try await entries == [2])
        #expect(feed.reads == 2, "the poll read without a signal")
    }

    @Test("a poll's own ending signal answers it at once with nothing, before or while it waits")
    func endedByANewerPoll() async throws {
        let poll = LongPoll(store: changes, readiness: readiness)
        let ending = ChangeSignal()
        async let entries = poll.entries(wait: 30, signal: changes.realmFeed, endedBy: ending) { feed.read() }
        await feed.waitForReads(1)
        ending.signal()
        #expect(try await entries == [])

        let ended = ChangeSignal()
        ended.signal()
        #expect(try await poll.entries(wait: 30, signal: changes.realmFeed, endedBy: ended) { feed.read() } == [])
    }

    @Test("draining answers waiting polls at once")
    func drainingAnswers() async throws {
        let poll = LongPoll(store: changes, readiness: readiness)
        async let entries = poll.entries(wait: 30, signal: changes.realmFeed) { feed.read() }
        await feed.waitForReads(1)
        readiness.markDraining()
        #expect(try await entries == [])
        #expect(feed.reads == 2)
    }
}
