import Synchronization
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("Shared IdP fetches")
struct SharedFetchTests {
    /// Counts calls; fails while `failing` is set, else answers the call's number after `delay`.
    final class FakeIdP: Sendable {
        let calls = Atomic(0)
        let failing = Atomic(false)
        let delay: Duration

        init(delay: Duration = .zero) { self.delay = delay }

        func fetch() async throws(OIDCError) -> Int {
            let call = calls.add(1, ordering: .relaxed).newValue
            try? await Task.sleep(for: delay)
            if failing.load(ordering: .relaxed) { throw .idpUnavailable("down") }
            return call
        }
    }

    /// A clock that moves only when told to.
    final class ManualClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(by duration: Duration) { instant.withLock { $0 += duration } }
    }

    @Test("concurrent callers share one fetch")
    func merged() async throws {
        let idp = FakeIdP(delay: .milliseconds(100))
        let shared = SharedFetch(retryDelay: .seconds(60)) { () async throws(OIDCError) -> Int in try await idp.fetch() }
        let values = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { try await shared.value() } }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(values == Array(repeating: 1, count: 50))
        #expect(idp.calls.load(ordering: .relaxed) == 1)
    }

    @Test("a failure is remembered for the retry delay, then tried again")
    func failureRemembered() async throws {
        let idp = FakeIdP()
        idp.failing.store(true, ordering: .relaxed)
        let clock = ManualClock()
        let shared = SharedFetch(retryDelay: .seconds(10), now: { clock.now }) { () async throws(OIDCError) -> Int in
            try await idp.fetch()
        }
        for _ in 0..<10 {
            await #expect(throws: OIDCError.self) { try await shared.value() }
        }
        #expect(idp.calls.load(ordering: .relaxed) == 1, "the IdP was asked again within the delay")
        idp.failing.store(false, ordering: .relaxed)
        clock.advance(by: .seconds(10))
        #expect(try await shared.value() == 2)
        #expect(try await shared.value() == 2, "a success is cached")
    }

    @Test("a refresh fetches again only once the last attempt is old enough")
    func refreshCooldown() async throws {
        let idp = FakeIdP()
        let clock = ManualClock()
        let shared = SharedFetch(retryDelay: .seconds(10), now: { clock.now }) { () async throws(OIDCError) -> Int in
            try await idp.fetch()
        }
        #expect(try await shared.value() == 1)
        for _ in 0..<10 { #expect(try await shared.refreshed() == 1) }
        clock.advance(by: .seconds(10))
        #expect(try await shared.refreshed() == 2)
        #expect(idp.calls.load(ordering: .relaxed) == 2)
    }
}
