import Foundation
import Logging
import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("Session sweeper")
struct SessionSweeperTests {
    @Test func theSessionSweeperSweepsTheConsoleToo() async throws {
        try await TestEnvironment.with { environment in
            let store = environment.store
            let start = Date(timeIntervalSince1970: 1_900_000_000)
            try await store.beginConsoleSignIn(
                ConsoleSignIn(
                    stateHash: "expired", environmentID: "dev", email: "boss@example.com", nonce: "nonce", codeVerifier: "verifier",
                    browserBinding: "binding", expiresAt: start.addingTimeInterval(100)
                ))
            let sweeper = SessionSweeper(store: store, settings: environment.configuration.sessions, logger: .init(label: "test"))
            await sweeper.sweep(now: start.addingTimeInterval(200))
            #expect(try await store.takeConsoleSignIn(stateHash: "expired", now: start.addingTimeInterval(1)) == nil)
        }
    }
}
