import Foundation
import Hummingbird
import HummingbirdTesting
import HummingbirdWSTesting
import NIOWebSocket
import WSCore
import Synchronization
import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// The event WebSocket against a live server, its hub and sweeper running.
@Suite("Event socket", .hangGuard)
struct EventSocketTests {
    /// Collects text frames until the server closes.
    final class Frames: Sendable {
        let texts = Mutex<[String]>([])
        var all: [String] { texts.withLock { $0 } }
    }

    /// A signed-in session with its token and realm events stored.
    static func signedIn(_ environment: TestEnvironment) async throws -> OnboardingSession {
        let (session, state) = try await environment.register()
        let taken = try #require(try await environment.store.consumeState(state, now: Date()))
        _ = try await environment.store.completeLogin(CompletedLogin.test(taken), now: Date())
        return session
    }

    static func seqs(_ frames: [String]) throws -> [Int] {
        try frames.map { try JSONDecoder().decode(EventFrame.self, from: Data($0.utf8)).seq }
    }

    @Test func aLateDeviceGetsEveryEventOnceThenDataReadyAndANormalClose() async throws {
        try await TestEnvironment.with { environment in
            let session = try await Self.signedIn(environment)
            let frames = Frames()
            try await environment.application().test(.live) { client in
                let close = try await client.ws("/events?session_id=\(session.id)") { inbound, _, _ in
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        guard case .text(let text) = message else { continue }
                        frames.texts.withLock { $0.append(text) }
                        if frames.all.count == 2 {
                            // Another process (the CLI) initializes the realm; the hub's poll finds it.
                            _ = try await environment.store.markRealmInitialized(path: session.realmPath, environmentID: nil, now: Date())
                        }
                    }
                }
                #expect(close?.closeCode == .normalClosure)
                // Sent is not received: until the device asks past the end, its token event stays.
                #expect(try await environment.store.events(sessionID: session.id, after: 0).map(\.seq) == [1, 2, 3])
                let acknowledged = try await client.ws("/events?session_id=\(session.id)&after=3") { inbound, _, _ in
                    for try await _ in inbound.messages(maxSize: 1 << 16) { Issue.record("a frame after the last") }
                }
                #expect(acknowledged?.closeCode == .normalClosure)
            }
            #expect(try Self.seqs(frames.all) == [1, 2, 3])
            #expect(frames.all.last?.contains(#""type":"data_ready""#) == true)
            // The reconnect past the terminal event acknowledged it: the token event is gone.
            #expect(try await environment.store.events(sessionID: session.id, after: 0).map(\.seq) == [2, 3])
        }
    }

    @Test func aReconnectWithAfterGetsOnlyLaterEvents() async throws {
        try await TestEnvironment.with { environment in
            let session = try await Self.signedIn(environment)
            let frames = Frames()
            try await environment.application().test(.live) { client in
                _ = try await client.ws("/events?session_id=\(session.id)&after=1") { inbound, outbound, _ in
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        guard case .text(let text) = message else { continue }
                        frames.texts.withLock { $0.append(text) }
                        try await outbound.close(.normalClosure, reason: nil)
                    }
                }
            }
            #expect(try Self.seqs(frames.all) == [2])
        }
    }

    @Test(arguments: [
        "/events", "/events?session_id=short", "/events?session_id=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "/events?session_id={id}&after=-1",
    ])
    func aBadOrUnknownSessionIsRefusedBeforeTheUpgrade(path: String) async throws {
        try await TestEnvironment.with { environment in
            let (session, _) = try await environment.register()
            try await environment.application().test(.live) { client in
                _ = await #expect(throws: (any Error).self) {
                    try await client.ws(path.replacingOccurrences(of: "{id}", with: session.id)) { _, _, _ in }
                }
            }
        }
    }

    @Test func anExpiredSessionHearsSessionExpired() async throws {
        try await TestEnvironment.with(extraEnvironment: ["SESSIONS_SWEEP_INTERVAL": "1"]) { environment in
            let (session, _) = try await environment.register(expiresIn: 1)
            let frames = Frames()
            try await environment.application().test(.live) { client in
                let close = try await client.ws("/events?session_id=\(session.id)") { inbound, _, _ in
                    for try await message in inbound.messages(maxSize: 1 << 16) {
                        if case .text(let text) = message { frames.texts.withLock { $0.append(text) } }
                    }
                }
                #expect(close?.closeCode == .normalClosure)
            }
            #expect(frames.all == [#"{"seq":1,"type":"session_expired"}"#])
        }
    }
}
