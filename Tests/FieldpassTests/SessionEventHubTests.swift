import Foundation
import Logging
import ServiceLifecycle
import ServiceLifecycleTestKit
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Session event hub", .hangGuard)
struct SessionEventHubTests {
    /// Stored by another process (the CLI on the same SQLite file): only the feed brings it.
    @Test func storedEventsReachSubscribersAndShutdownEndsTheirStreams() async throws {
        try await TestEnvironment.with { environment in
            let hub = SessionEventHub(store: environment.store, logger: Logger(label: "test"))
            let (session, _) = try await environment.register()
            let otherProcess = try SQLiteStore(path: environment.folder.appendingPathComponent("fieldpass.sqlite").path)
            try await testGracefulShutdown { trigger in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await hub.run() }
                    let subscription = try await hub.subscribe(sessionID: session.id)
                    // The subscription fixed the feed's start; this process's change signal
                    // stands in for the file watcher that would wake the hub.
                    _ = try await otherProcess.failLogin(
                        sessionID: session.id, error: "access_denied", description: "no", audited: false, now: Date())
                    environment.store.sessionEvents.signal()
                    var iterator = subscription.events.makeAsyncIterator()
                    let event = await iterator.next()
                    #expect(event?.seq == 1)
                    #expect(event?.isTerminal == true)

                    trigger.triggerGracefulShutdown()
                    #expect(await iterator.next() == nil)
                    try await group.waitForAll()
                }
            }
            #expect(await hub.subscriberCount == 0)
        }
    }

    /// Stored by this process: handed over at commit, before the feed brings it again, which
    /// a subscriber tells apart by its `seq`.
    @Test func thisProcesssEventsComeAtCommitAndAgainFromTheFeed() async throws {
        try await TestEnvironment.with { environment in
            let hub = SessionEventHub(store: environment.store, logger: Logger(label: "test"))
            let (session, _) = try await environment.register()
            let subscription = try await hub.subscribe(sessionID: session.id)
            var iterator = subscription.events.makeAsyncIterator()
            // The hub's feed is not followed yet: what arrives came at commit.
            _ = try await environment.store.failLogin(
                sessionID: session.id, error: "access_denied", description: "no", audited: false, now: Date())
            #expect(await iterator.next()?.seq == 1)
            try await testGracefulShutdown { trigger in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await hub.run() }
                    #expect(await iterator.next()?.seq == 1)
                    trigger.triggerGracefulShutdown()
                    #expect(await iterator.next() == nil)
                    try await group.waitForAll()
                }
            }
        }
    }
}
