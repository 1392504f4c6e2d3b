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
    @Test func storedEventsReachSubscribersAndShutdownEndsTheirStreams() async throws {
        try await TestEnvironment.with { environment in
            let hub = SessionEventHub(store: environment.store, logger: Logger(label: "test"))
            let (session, _) = try await environment.register()
            try await testGracefulShutdown { trigger in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await hub.run() }
                    let subscription = try await hub.subscribe(sessionID: session.id)
                    // Store an event as another process would: the subscription fixed the feed's start.
                    _ = try await environment.store.failLogin(
                        sessionID: session.id, error: "access_denied", description: "no", audited: false, now: Date())
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
}
