import Foundation
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport
import NIOFoundationEssentialsCompat
import Synchronization

/// `GET /events/poll` against a live server, its hub running: the socket's events by long-poll.
@Suite("Event long-poll", .hangGuard)
struct EventPollRouterTests {
    struct Page: Decodable {
        var events: [EventFrame]
        var ended: Bool
    }

    static func poll(_ client: some TestClientProtocol, _ query: String) async throws -> (HTTPResponse.Status, Page?) {
        try await client.execute(uri: "/events/poll?\(query)", method: .get) { response in
            (response.status, try? JSONDecoder().decode(Page.self, from: Data(buffer: response.body)))
        }
    }

    @Test func storedEventsComeAtOnceAndAPollPastTheTerminalOneEndsTheSession() async throws {
        try await TestEnvironment.with { environment in
            let session = try await EventSocketTests.signedIn(environment)
            try await environment.application().test(.live) { client in
                let (status, first) = try await Self.poll(client, "session_id=\(session.id)&wait=30")
                #expect(status == .ok)
                #expect(first?.events.map(\.seq) == [1, 2] && first?.ended == false)
                #expect(first?.events.first?.accessToken == "access")
                _ = try await environment.store.markRealmInitialized(path: session.realmPath, environmentID: nil, now: Date())
                let (_, last) = try await Self.poll(client, "session_id=\(session.id)&after=2&wait=30")
                #expect(last?.events.map(\.type) == ["data_ready"] && last?.ended == true)
                // Sent is not received: the same poll again (its answer was lost) gets the same events.
                let (_, repeated) = try await Self.poll(client, "session_id=\(session.id)&after=0&wait=30")
                #expect(repeated?.events.map(\.seq) == [1, 2, 3] && repeated?.ended == true)
                // The poll past the terminal event acknowledges it: nothing more, and the session ends.
                let (_, acknowledged) = try await Self.poll(client, "session_id=\(session.id)&after=3&wait=30")
                #expect(acknowledged?.events.isEmpty == true && acknowledged?.ended == true)
                // Ended: an answer at once, with the token event purged.
                let (_, again) = try await Self.poll(client, "session_id=\(session.id)&wait=30")
                #expect(again?.events.map(\.seq) == [2, 3] && again?.ended == true)
            }
        }
    }

    @Test func aWaitingPollIsAnsweredByTheNextEvent() async throws {
        try await TestEnvironment.with { environment in
            let (session, state) = try await environment.register()
            try await environment.application().test(.live) { client in
                let answer = Mutex<(HTTPResponse.Status, Page?)?>(nil)
                // Answered by the event, not by its 30 s wait running out.
                let woken = try await finishesBeforeTimeout(.seconds(30)) {
                    async let polled = Self.poll(client, "session_id=\(session.id)&wait=30")
                    try await Task.sleep(for: .milliseconds(200))
                    let taken = try #require(try await environment.store.consumeState(state, now: Date()))
                    _ = try await environment.store.completeLogin(CompletedLogin.test(taken), now: Date())
                    let result = try await polled
                    answer.withLock { $0 = result }
                }
                #expect(woken)
                let (status, page) = try #require(answer.withLock { $0 })
                #expect(status == .ok && page?.events.map(\.type) == ["token", "realm_initialized"])
            }
        }
    }

    @Test func aPollWithoutWaitAnswersAtOnceWithNothing() async throws {
        try await TestEnvironment.with { environment in
            let (session, _) = try await environment.register()
            try await environment.application().test(.router) { client in
                let (status, page) = try await Self.poll(client, "session_id=\(session.id)")
                #expect(status == .ok && page?.events.isEmpty == true && page?.ended == false)
            }
        }
    }

    @Test(arguments: [
        ("", HTTPResponse.Status.badRequest), ("session_id=short", .badRequest), ("session_id={id}&after=-1", .badRequest),
        ("session_id={id}&wait=1.5", .badRequest), ("session_id={id}&wait=99999999999999999999", .badRequest),
        ("session_id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", .notFound),
    ])
    func badQueriesAreRefused(query: String, status: HTTPResponse.Status) async throws {
        try await TestEnvironment.with { environment in
            let (session, _) = try await environment.register()
            try await environment.application().test(.router) { client in
                let (answered, _) = try await Self.poll(client, query.replacingOccurrences(of: "{id}", with: session.id))
                #expect(answered == status)
            }
        }
    }
}
