import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport
import Logging

@Suite("Console store: sign-ins and sessions")
struct ConsoleStoreTests {
    /// Whole seconds, so that times come back from either store exactly as written.
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    static func signIn(_ stateHash: String, expiresIn: TimeInterval = 300) -> ConsoleSignIn {
        ConsoleSignIn(
            stateHash: stateHash, environmentID: "dev", email: "boss@example.com", nonce: "nonce-\(stateHash)",
            codeVerifier: "verifier-\(stateHash)", browserBinding: "binding-\(stateHash)", expiresAt: start.addingTimeInterval(expiresIn)
        )
    }

    /// A session of `user` created at ``start``, idle after `idle` and over after `lifetime` seconds.
    static func session(_ idHash: String, of user: UserRecord, idle: TimeInterval = 600, lifetime: TimeInterval = 3600) -> ConsoleSession {
        ConsoleSession(
            idHash: idHash, userID: user.id, environmentID: user.environmentID, createdAt: start,
            expiresAt: start.addingTimeInterval(lifetime), idleExpiresAt: start.addingTimeInterval(idle)
        )
    }

    static func at(_ seconds: TimeInterval) -> Date { start.addingTimeInterval(seconds) }

    @Test(arguments: StoreKind.allCases) func aSignInIsTakenOnceAndNotAfterItExpires(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            try await store.beginConsoleSignIn(Self.signIn("a"))
            try await store.beginConsoleSignIn(Self.signIn("b", expiresIn: 60))
            #expect(try await store.takeConsoleSignIn(stateHash: "a", now: Self.at(10)) == Self.signIn("a"))
            #expect(try await store.takeConsoleSignIn(stateHash: "a", now: Self.at(10)) == nil)
            #expect(try await store.takeConsoleSignIn(stateHash: "b", now: Self.at(60)) == nil)
            #expect(try await store.takeConsoleSignIn(stateHash: "unknown", now: Self.at(10)) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aLiveSessionAnswersWithItsPersonAndMovesItsIdleEnd(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.setRole(
                .admin, userID: try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Self.start).id,
                by: .cli(environmentID: "dev"), managed: .none, now: Self.start
            )
            try await store.createConsoleSession(Self.session("s", of: user))
            let found = try #require(try await store.consoleSession(idHash: "s", now: Self.at(500), idleTimeout: 600))
            #expect(found.user == user)
            var moved = Self.session("s", of: user)
            moved.idleExpiresAt = Self.at(1100)
            #expect(found.session == moved)
            // Live past its first idle end, which has moved.
            #expect(
                try await store.consoleSession(idHash: "s", now: Self.at(1000), idleTimeout: 600)?.session.idleExpiresAt == Self.at(1600))
            #expect(try await store.consoleSession(idHash: "unknown", now: Self.at(1000), idleTimeout: 600) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func theIdleEndNeverPassesTheAbsoluteEnd(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Self.start)
            try await store.createConsoleSession(Self.session("s", of: user, idle: 100, lifetime: 300))
            let found = try #require(try await store.consoleSession(idHash: "s", now: Self.at(50), idleTimeout: 600))
            #expect(found.session.idleExpiresAt == Self.at(300))
            #expect(found.session.expiresAt == Self.at(300))
            #expect(try await store.consoleSession(idHash: "s", now: Self.at(299), idleTimeout: 600) != nil)
            #expect(try await store.consoleSession(idHash: "s", now: Self.at(300), idleTimeout: 600) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aDeadSessionAnswersNothingAndIsGone(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Self.start)
            try await store.createConsoleSession(Self.session("idle", of: user, idle: 600))
            try await store.createConsoleSession(Self.session("over", of: user, idle: 600, lifetime: 400))
            try await store.createConsoleSession(Self.session("ended", of: user))
            #expect(try await store.consoleSession(idHash: "idle", now: Self.at(600), idleTimeout: 600) == nil)
            #expect(try await store.consoleSession(idHash: "over", now: Self.at(450), idleTimeout: 600) == nil)
            try await store.endConsoleSession(idHash: "ended")
            try await store.endConsoleSession(idHash: "unknown")
            // Deleted: not even a request from before their end finds them.
            for hash in ["idle", "over", "ended"] {
                #expect(try await store.consoleSession(idHash: hash, now: Self.at(1), idleTimeout: 600) == nil, "\(hash)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func disablingAPersonEndsTheirSessions(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Self.start)
            let other = try await store.ensureUser(email: "other@example.com", environmentID: "dev", now: Self.start)
            try await store.createConsoleSession(Self.session("s", of: user))
            try await store.createConsoleSession(Self.session("o", of: other))
            _ = try await store.setDisabled(true, userID: user.id, by: .cli(environmentID: "dev"), now: Self.start)
            // Enabled again, the person signs in anew: the session did not survive.
            _ = try await store.setDisabled(false, userID: user.id, by: .cli(environmentID: "dev"), now: Self.start)
            #expect(try await store.consoleSession(idHash: "s", now: Self.at(1), idleTimeout: 600) == nil)
            #expect(try await store.consoleSession(idHash: "o", now: Self.at(1), idleTimeout: 600)?.user == other)
        }
    }

    @Test(arguments: StoreKind.allCases) func aSessionOfADisabledPersonIsDead(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Self.start)
            _ = try await store.setDisabled(true, userID: user.id, by: .cli(environmentID: "dev"), now: Self.start)
            // Created after the disabling, as a sign-in racing it could.
            try await store.createConsoleSession(Self.session("s", of: user))
            #expect(try await store.consoleSession(idHash: "s", now: Self.at(1), idleTimeout: 600) == nil)
            _ = try await store.setDisabled(false, userID: user.id, by: .cli(environmentID: "dev"), now: Self.start)
            #expect(try await store.consoleSession(idHash: "s", now: Self.at(1), idleTimeout: 600) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aDeletedPersonsSessionsGoWithThem(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "gone@example.com", environmentID: "dev", now: Self.start)
            try await store.createConsoleSession(Self.session("s", of: user))
            #expect(try await store.removeUnconfirmedUsers(registeredBefore: Self.at(60)) == 1)
            #expect(try await store.consoleSession(idHash: "s", now: Self.at(1), idleTimeout: 600) == nil)
            #expect(try await environment.tablesContaining(user.id).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func theSweepDeletesExpiredSignInsAndDeadSessionsOnly(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Self.start)
            let disabled = try await store.ensureUser(email: "off@example.com", environmentID: "dev", now: Self.start)
            try await store.beginConsoleSignIn(Self.signIn("expired", expiresIn: 100))
            try await store.beginConsoleSignIn(Self.signIn("pending", expiresIn: 300))
            try await store.createConsoleSession(Self.session("idle", of: user, idle: 100))
            try await store.createConsoleSession(Self.session("over", of: user, idle: 100, lifetime: 100))
            try await store.createConsoleSession(Self.session("live", of: user, idle: 300))
            _ = try await store.setDisabled(true, userID: disabled.id, by: .cli(environmentID: "dev"), now: Self.start)
            try await store.createConsoleSession(Self.session("disabled", of: disabled))

            try await store.sweepConsole(now: Self.at(200))
            // Asked as of before their ends: only rows the sweep kept can answer.
            #expect(try await store.takeConsoleSignIn(stateHash: "expired", now: Self.at(1)) == nil)
            #expect(try await store.takeConsoleSignIn(stateHash: "pending", now: Self.at(1)) != nil)
            _ = try await store.setDisabled(false, userID: disabled.id, by: .cli(environmentID: "dev"), now: Self.start)
            for hash in ["idle", "over", "disabled"] {
                #expect(try await store.consoleSession(idHash: hash, now: Self.at(1), idleTimeout: 1) == nil, "\(hash)")
            }
            #expect(try await store.consoleSession(idHash: "live", now: Self.at(1), idleTimeout: 1) != nil)
        }
    }
}
