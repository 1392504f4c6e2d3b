import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Onboarding store")
struct OnboardingStoreTests {
    @Test(arguments: StoreKind.allCases) func aStateCanBeUsedOnce(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let (session, state) = try await environment.register()
            #expect(try await environment.store.consumeState(state, now: Date())?.id == session.id)
            #expect(try await environment.store.consumeState(state, now: Date()) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func anIdPsRefusalTakesTheStateAndFailsItsSessionTogether(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, state) = try await environment.register()
            let refused = try #require(
                try await store.refuseState(state, now: Date()) { taken in
                    LoginFailure(error: "access_denied", description: "for \(taken.email)", audited: false)
                }
            )
            #expect(refused.session.id == session.id)
            #expect(refused.failure == LoginFailure(error: "access_denied", description: "for \(session.email)", audited: false))
            #expect(refused.events.map(\.seq) == [1])
            let failed = SessionEvent.loginFailed(error: "access_denied", description: "for \(session.email)")
            #expect(try await store.events(sessionID: session.id, after: 0).map(\.event) == [failed])
            #expect(try await store.session(id: session.id)?.status == .failed)
            // The state is used: neither a refusal nor a code can take it again.
            #expect(try await store.consumeState(state, now: Date()) == nil)
            let again = try await store.refuseState(state, now: Date()) { _ in
                Issue.record("a used state's session was asked for a failure")
                return LoginFailure(error: "access_denied", description: "again", audited: false)
            }
            #expect(again == nil)
            #expect(try await store.events(sessionID: session.id, after: 0).count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRefusalOfAnExpiredSessionChangesNothing(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, late) = try await environment.register(expiresIn: -1)
            let refused = try await store.refuseState(late, now: Date()) { _ in
                Issue.record("an expired session was asked for a failure")
                return LoginFailure(error: "access_denied", description: "late", audited: false)
            }
            #expect(refused == nil)
            #expect(try await store.session(id: session.id)?.status == .pending)
            #expect(try await store.events(sessionID: session.id, after: 0).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func theWayBackToTheAppComesWithTheSessionItsCallbackTakes(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let appReturn = AppReturn(uri: "com.example.fieldapp:/signed-in", state: "a b&c=d")
            let (_, state) = try await environment.register(appReturn: appReturn)
            #expect(try await environment.store.consumeState(state, now: Date())?.appReturn == appReturn)
            let (plain, _) = try await environment.register(email: "bob@example.com")
            #expect(try await environment.store.session(id: plain.id)?.appReturn == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func anExpiredSessionsStateStillFindsTheWayBackToTheApp(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let appReturn = AppReturn(uri: "com.example.fieldapp:/signed-in", state: nil)
            let (_, late) = try await environment.register(expiresIn: -1, appReturn: appReturn)
            #expect(try await environment.store.expiredAppReturn(state: late, now: Date()) == appReturn)
            #expect(try await environment.store.consumeState(late, now: Date()) == nil)
            // A live session's state, or one already used, is not the expired kind.
            let (_, live) = try await environment.register(email: "bob@example.com", appReturn: appReturn)
            #expect(try await environment.store.expiredAppReturn(state: live, now: Date()) == nil)
            _ = try await environment.store.consumeState(live, now: Date())
            #expect(try await environment.store.expiredAppReturn(state: live, now: Date().addingTimeInterval(3600)) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func loginStoresNumberedEventsAndDataReadyFollowsInitialization(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, state) = try await environment.register()
            let taken = try #require(try await store.consumeState(state, now: Date()))
            let stored = try await store.completeLogin(CompletedLogin.test(taken), now: Date())
            try #require(stored.map(\.seq) == [1, 2])
            #expect(stored.map(\.isTerminal) == [false, false])
            #expect(stored[1].seq == 2 && stored[1].event == .realmInitialized(realmPath: session.realmPath))

            let ready = try #require(try await store.markRealmInitialized(path: session.realmPath, environmentID: nil, now: Date()))
            #expect(!ready.wasInitialized)
            #expect(ready.events.map(\.seq) == [3])
            #expect(ready.events.first?.isTerminal == true)
            #expect(try await store.events(sessionID: session.id, after: 1).map(\.seq) == [2, 3])
            #expect(
                try await store.markRealmInitialized(path: session.realmPath, environmentID: nil, now: Date())
                    == RealmInitialization(wasInitialized: true, events: []))
            #expect(try await store.markRealmInitialized(path: "/users/nobody", environmentID: nil, now: Date()) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func aReturningUserWithAnInitializedRealmGetsDataReadyAtOnce(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (first, _) = try await environment.register()
            _ = try await store.markRealmInitialized(path: first.realmPath, environmentID: nil, now: Date())
            let (second, state) = try await environment.register()
            #expect(second.userID == first.userID)
            #expect(second.deviceID == first.deviceID)
            let taken = try #require(try await store.consumeState(state, now: Date()))
            let stored = try await store.completeLogin(CompletedLogin.test(taken), now: Date())
            #expect(stored.map(\.seq) == [1, 2, 3])
            #expect(stored.last?.event.type == "data_ready")
        }
    }

    @Test(arguments: StoreKind.allCases) func onlyAnAcknowledgementPastTheTerminalEventEndsTheSession(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, state) = try await environment.register()
            let taken = try #require(try await store.consumeState(state, now: Date()))
            _ = try await store.completeLogin(CompletedLogin.test(taken), now: Date())
            // Unfinished: having read everything so far acknowledges nothing.
            #expect(try await store.acknowledgeEvents(sessionID: session.id, after: 2, now: Date()) == false)
            _ = try await store.markRealmInitialized(path: session.realmPath, environmentID: nil, now: Date())
            // Finished, but the device's request is older than the terminal event.
            #expect(try await store.acknowledgeEvents(sessionID: session.id, after: 2, now: Date()) == false)
            #expect(try await store.events(sessionID: session.id, after: 0).map(\.seq) == [1, 2, 3])

            #expect(try await store.acknowledgeEvents(sessionID: session.id, after: 3, now: Date()) == true)
            #expect(try await store.events(sessionID: session.id, after: 0).map(\.seq) == [2, 3])
            #expect(try await store.acknowledgeEvents(sessionID: session.id, after: 3, now: Date()) == false, "it ended once")
        }
    }

    @Test(arguments: StoreKind.allCases) func anUnacknowledgedSessionEndsAtTheLaterOfItsExpiryAndTheGrace(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, state) = try await environment.register(expiresIn: 60)
            let finishedAt = Date()
            let taken = try #require(try await store.consumeState(state, now: finishedAt))
            _ = try await store.completeLogin(CompletedLogin.test(taken), now: finishedAt)
            _ = try await store.markRealmInitialized(path: session.realmPath, environmentID: nil, now: finishedAt)
            let pastExpiry = finishedAt.addingTimeInterval(120)
            // Past its expiry, but its last event is younger than the grace: the token waits.
            _ = try await store.sweepSessions(
                now: pastExpiry, deliveredBefore: finishedAt.addingTimeInterval(-1), deleteBefore: .distantPast)
            #expect(try await store.events(sessionID: session.id, after: 0).map(\.seq) == [1, 2, 3])

            _ = try await store.sweepSessions(
                now: pastExpiry, deliveredBefore: finishedAt.addingTimeInterval(1), deleteBefore: .distantPast)
            #expect(try await store.events(sessionID: session.id, after: 0).map(\.seq) == [2, 3])
            #expect(try await store.acknowledgeEvents(sessionID: session.id, after: 3, now: pastExpiry) == false, "the sweep ended it")
        }
    }

    @Test(arguments: StoreKind.allCases) func aLoginsTokensAreNowhereInTheStoreOnceItsSessionEnds(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, state) = try await environment.register()
            let taken = try #require(try await store.consumeState(state, now: Date()))
            var login = CompletedLogin.test(taken)
            login.accessToken = "access-\(UUID().uuidString)"
            login.refreshToken = "refresh-\(UUID().uuidString)"
            _ = try await store.completeLogin(login, now: Date())
            // Until the device has taken its token event, the event holds both.
            #expect(try await environment.tablesContaining(login.refreshToken) == ["session_events"])

            _ = try await store.markRealmInitialized(path: session.realmPath, environmentID: nil, now: Date())
            #expect(try await store.acknowledgeEvents(sessionID: session.id, after: 3, now: Date()))
            #expect(try await environment.tablesContaining(login.accessToken) == [])
            #expect(try await environment.tablesContaining(login.refreshToken) == [], "only the refresh token's hash may stay")
        }
    }

    @Test(arguments: StoreKind.allCases) func anUnconfirmedUserGoesWithEverythingOfTheirs(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, _) = try await environment.register(expiresIn: 60)
            let later = Date().addingTimeInterval(120)
            _ = try await store.sweepSessions(now: later, deliveredBefore: later, deleteBefore: .distantPast)
            #expect(try await environment.tablesContaining(session.userID).contains("realms"))

            #expect(try await store.removeUnconfirmedUsers(registeredBefore: later) == 1)
            #expect(try await environment.tablesContaining(session.userID) == [], "the user's realm, device or session stayed")
        }
    }

    @Test(arguments: StoreKind.allCases) func theSweepExpiresUnfinishedSessionsAndLaterDeletesThem(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, _) = try await environment.register(expiresIn: 60)
            #expect(try await store.sweepSessions(now: Date(), deliveredBefore: Date(), deleteBefore: .distantPast).isEmpty)

            let later = Date().addingTimeInterval(120)
            let expired = try await store.sweepSessions(now: later, deliveredBefore: later, deleteBefore: .distantPast)
            #expect(expired.map { [$0.seq: $0.event] } == [[1: .sessionExpired]])
            #expect(try await store.session(id: session.id)?.status == .expired)
            #expect(try await store.sweepSessions(now: later, deliveredBefore: later, deleteBefore: .distantPast).isEmpty)

            _ = try await store.sweepSessions(now: later, deliveredBefore: later, deleteBefore: later)
            #expect(try await store.session(id: session.id) == nil)
            #expect(try await store.events(sessionID: session.id, after: 0).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func theFeedReturnsEventsOfAllSessionsInRowOrder(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let start = try await store.latestEventRowID()
            let (a, _) = try await environment.register(email: "a@example.com")
            let (b, _) = try await environment.register(email: "b@example.com")
            // Followed as the hubs follow it: on PostgreSQL a row is placed once no older
            // transaction can still commit, and one of another database (the suites share a
            // server) that ends while a read places counts as running, so a row may come a
            // read later.
            let follower = Follower { after in try await store.events(afterRowID: after, limit: 10).map { ($0.rowID, $0.sessionID) } }
            let feed = try await follower.follow(from: start, until: 2) {
                _ = try await store.failLogin(sessionID: a.id, error: "access_denied", description: "no", audited: false, now: Date())
                _ = try await store.failLogin(sessionID: b.id, error: "access_denied", description: "no", audited: false, now: Date())
            }
            #expect(feed.map(\.1) == [a.id, b.id])
            let first = try #require(feed.first)
            #expect(try await store.events(afterRowID: first.0, limit: 10).map(\.sessionID) == [b.id])
        }
    }
}
