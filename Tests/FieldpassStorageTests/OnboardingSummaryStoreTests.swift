import Foundation
import Testing
import Tokens
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Console store: onboarding summary")
struct OnboardingSummaryStoreTests {
    /// A registration through the confirmation page, as an environment with `confirm_device` makes it.
    static func registerConfirming(
        _ email: String, on store: any FieldpassStore, now: Date
    ) async throws -> (session: OnboardingSession, loginID: String, csrfToken: String) {
        let loginID = try Crypto.randomToken()
        let csrfToken = try Crypto.randomToken()
        let session = try await store.registerDevice(
            DeviceRegistration(
                email: email, environmentID: "dev", deviceName: "Pixel", platform: "android",
                sessionID: try Crypto.randomToken(), state: try Crypto.randomToken(), nonce: try Crypto.randomToken(),
                codeVerifier: try Crypto.randomToken(), userCode: "BCDF-GHJK", confirmation: (loginID, csrfToken),
                now: now, expiresAt: now.addingTimeInterval(600)
            )
        )
        return (session, loginID, csrfToken)
    }

    @Test(arguments: StoreKind.allCases) func theSummaryCountsWhatSessionsReachedAndWhoWaitsForData(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let now = Date()
            // Ada goes all the way, with her realm filled while she waits.
            let ada = try await Self.registerConfirming("ada@example.com", on: store, now: now)
            guard
                case .confirmed(_, let state) = try await store.confirmDevice(
                    loginID: ada.loginID, csrfToken: ada.csrfToken, browserBinding: "binding", now: now
                )
            else {
                Issue.record("not confirmed")
                return
            }
            let taken = try #require(try await store.consumeState(state, now: now))
            let attempt = SignInAttempt(userID: ada.session.userID, issuer: "https://idp.test", subject: "ada", promoteToAdmin: false)
            _ = try await store.recordSignIn(attempt, now: now)
            _ = try await store.completeLogin(CompletedLogin.test(taken), now: now)
            let waiting = try await store.onboardingSummary(environmentID: "dev", since: now.addingTimeInterval(-60), waitingLimit: 10)
            #expect(waiting.waitingForData.map(\.user.id) == [ada.session.userID])
            #expect(waiting.waitingForData.first?.status == .active)
            _ = try await store.markRealmInitialized(path: ada.session.realmPath, environmentID: "dev", now: now)

            // Bob is refused twice, once for a reason the list does not name; Cy never signs in.
            let (bob, _) = try await environment.register(email: "bob@example.com")
            _ = try await store.failLogin(sessionID: bob.id, error: "access_denied", description: "no", audited: false, now: now)
            let (bob2, _) = try await environment.register(email: "bob@example.com")
            _ = try await store.failLogin(sessionID: bob2.id, error: "made_up", description: "no", audited: true, now: now)
            _ = try await environment.register(email: "cy@example.com", expiresIn: 60)
            // Cy's session expires 60 s after its registration by the clock, which a busy
            // machine may reach well after `now`: the sweep runs 120 s after that.
            let sweptAt = Date().addingTimeInterval(120)
            _ = try await store.sweepSessions(now: sweptAt, deliveredBefore: sweptAt, deleteBefore: .distantPast)
            _ = try await store.ensureUser(email: "x@other.test", environmentID: "other", now: now)

            let summary = try await store.onboardingSummary(environmentID: "dev", since: now.addingTimeInterval(-60), waitingLimit: 10)
            let expected: [OnboardingOutcome: Int] = [.registered: 4, .confirmed: 1, .signedIn: 1, .dataReady: 1, .failed: 2, .expired: 1]
            #expect(summary.counts == expected)
            #expect(summary.failures == ["access_denied": 1, "other": 1])
            #expect(summary.waitingForData.isEmpty)

            let later = try await store.onboardingSummary(environmentID: "dev", since: now.addingTimeInterval(3600), waitingLimit: 10)
            #expect(later == OnboardingSummary(counts: [:], failures: [:], waitingForData: []))
            let elsewhere = try await store.onboardingSummary(environmentID: "other", since: .distantPast, waitingLimit: 10)
            #expect(elsewhere.counts.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func aReturningPersonIsReadyAtSignInAndOldOutcomesAreSwept(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let now = Date()
            let (first, _) = try await environment.register()
            _ = try await store.markRealmInitialized(path: first.realmPath, environmentID: "dev", now: now)
            let (_, state) = try await environment.register()
            let taken = try #require(try await store.consumeState(state, now: now))
            _ = try await store.completeLogin(CompletedLogin.test(taken), now: now)
            let summary = try await store.onboardingSummary(environmentID: "dev", since: .distantPast, waitingLimit: 10)
            #expect(summary.counts == [.registered: 2, .signedIn: 1, .dataReady: 1])

            // As the session sweeper runs: sessions first, then the console's old outcomes.
            func sweep(after hours: Double) async throws {
                _ = try await store.sweepSessions(
                    now: now.addingTimeInterval(hours * 3600), deliveredBefore: now.addingTimeInterval(hours * 3600),
                    deleteBefore: .distantPast)
                try await store.sweepConsole(now: now.addingTimeInterval(hours * 3600))
            }
            try await sweep(after: 24)
            #expect(try await store.onboardingSummary(environmentID: "dev", since: .distantPast, waitingLimit: 10).count(.registered) == 2)
            // The first session expired at the first sweep: only that row is younger than a day and an hour.
            try await sweep(after: 26)
            #expect(try await store.onboardingSummary(environmentID: "dev", since: .distantPast, waitingLimit: 10).counts == [.expired: 1])
        }
    }

    @Test(arguments: StoreKind.allCases) func theLongestWaitingComeFirstUpToTheLimit(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let start = ConsoleStoreTests.start
            var ids: [String] = []
            for (index, name) in ["c", "a", "b", "off", "ready", "never", "console"].enumerated() {
                let user = try await store.ensureUser(email: "\(name)@example.com", environmentID: "dev", now: start)
                ids.append(user.id)
                guard name != "never" else { continue }
                let attempt = SignInAttempt(userID: user.id, issuer: "https://idp.test", subject: name, promoteToAdmin: false)
                _ = try await store.recordSignIn(attempt, now: start.addingTimeInterval(Double(index)))
                // Signed in on a device, which then holds its tokens; "console" signed in at the console only.
                guard name != "console" else { continue }
                let (_, state) = try await environment.register(email: "\(name)@example.com")
                let session = try #require(try await store.consumeState(state, now: Date()))
                _ = try await store.completeLogin(CompletedLogin.test(session), now: Date())
            }
            _ = try await store.setDisabled(true, userID: ids[3], by: .cli(environmentID: "dev"), now: start)
            _ = try await store.markRealmInitialized(path: RealmPath.personal(userID: ids[4]), environmentID: "dev", now: start)
            let summary = try await store.onboardingSummary(environmentID: "dev", since: .distantPast, waitingLimit: 2)
            #expect(summary.waitingForData.map(\.user.email) == ["c@example.com", "a@example.com"])
            #expect(summary.waitingForData.first?.signedInAt == start)
            let all = try await store.onboardingSummary(environmentID: "dev", since: .distantPast, waitingLimit: 10)
            #expect(all.waitingForData.map(\.user.email) == ["c@example.com", "a@example.com", "b@example.com"])
        }
    }
}
