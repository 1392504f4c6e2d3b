import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Session, confirmation and clean-up rules, without a database")
struct SessionRulesTests {
    static let session = OnboardingSession(
        id: "s1", userID: "u1", deviceID: "d1", environmentID: "acme", email: "a@acme.test", role: "worker", nonce: "n",
        codeVerifier: "v", status: .exchanging, expiresAt: Date(timeIntervalSince1970: 2_000), confirmsDevice: true
    )
    static let login = CompletedLogin(
        session: session, accessToken: "at", accessTokenTTL: 300, refreshToken: "rt", refreshTokenHash: "h",
        refreshTokenExpiresAt: Date(timeIntervalSince1970: 3_000), refreshTokenMaxExpiresAt: Date(timeIntervalSince1970: 9_000)
    )

    @Test func aSignInStoresTheTokenThenTheRealmAndDataReadyOnlyForAFilledRealm() {
        #expect(
            SessionRules.signInEvents(Self.login, announcedRealm: "/users/u1", realmInitialized: false) == [
                .token(accessToken: "at", refreshToken: "rt", expiresIn: 300), .realmInitialized(realmPath: "/users/u1"),
            ])
        #expect(
            SessionRules.signInEvents(Self.login, announcedRealm: "/users/u1", realmInitialized: true).map(\.type)
                == ["token", "realm_initialized", "data_ready"])
    }

    @Test func eachTransitionLeavesOnlyTheStatesItMayLeave() {
        #expect(SessionRules.exchange == SessionTransition(from: [.pending], to: .exchanging))
        #expect(SessionRules.signIn == SessionTransition(from: [.exchanging], to: .authenticated))
        #expect(SessionRules.dataReady == SessionTransition(from: [.authenticated], to: .completed))
        #expect(SessionRules.failure.from == [.pending, .exchanging])
        #expect(SessionRules.expiry.fromValues == ["pending", "exchanging", "authenticated"])
        // No transition leaves an ended session: completed, failed and expired are final.
        let all = [SessionRules.exchange, SessionRules.signIn, SessionRules.dataReady, SessionRules.failure, SessionRules.expiry]
        let ended: Set<OnboardingSession.Status> = [.completed, .failed, .expired]
        #expect(all.allSatisfy { Set($0.from).isDisjoint(with: ended) })
    }

    static func confirmation(
        status: OnboardingSession.Status? = .pending, confirmedAt: Double? = nil, expiresAt: Double = 2_000
    ) -> ConfirmationRules.Session {
        ConfirmationRules.Session(
            id: "s1", state: "st", status: status, csrfToken: "csrf-1", confirmedAt: confirmedAt, expiresAt: expiresAt)
    }

    @Test func aPageConfirmsOnceWithItsOwnToken() {
        #expect(ConfirmationRules.decide(Self.confirmation(), csrfToken: "csrf-1", now: 1_000) == .confirm(sessionID: "s1", state: "st"))
        #expect(ConfirmationRules.decide(Self.confirmation(), csrfToken: "csrf-2", now: 1_000) == .forged)
        #expect(ConfirmationRules.decide(Self.confirmation(), csrfToken: "", now: 1_000) == .forged)
        #expect(ConfirmationRules.decide(nil, csrfToken: "csrf-1", now: 1_000) == .unknown)
    }

    @Test(arguments: [
        confirmation(confirmedAt: 900), confirmation(status: .exchanging), confirmation(status: .failed), confirmation(expiresAt: 1_000),
    ])
    func aConfirmedStartedOrExpiredPageIsUsed(session: ConfirmationRules.Session) {
        #expect(!ConfirmationRules.isUsable(session, now: 1_000))
        #expect(ConfirmationRules.decide(session, csrfToken: "csrf-1", now: 1_000) == .used)
    }

    @Test func theSweepExpiresBeforeItDropsTokensEndsAndForgets() {
        #expect(
            SessionRules.sweep(now: 1_000, deliveredBefore: 700, deleteBefore: 400) == [
                .expireOverdue(SessionRules.overdueExpiry(now: 1_000)), .dropTokenEvents(now: 1_000, deliveredBefore: 700),
                .markEnded(now: 1_000, deliveredBefore: 700), .deleteExpired(before: 400),
            ] + TokenPurge.steps(now: 1_000).map(SessionSweepStep.purgeSpentTokens))
    }

    @Test(arguments: SessionRules.finished)
    func aFinishedSessionIsAcknowledgedByARequestAtOrPastItsLastEvent(status: OnboardingSession.Status) {
        #expect(SessionRules.acknowledges(after: 3, lastSeq: 3, status: status))
        #expect(SessionRules.acknowledges(after: 9, lastSeq: 3, status: status))
        // A repeat of an older request (its answer was lost) acknowledges nothing.
        #expect(!SessionRules.acknowledges(after: 2, lastSeq: 3, status: status))
        #expect(!SessionRules.acknowledges(after: 0, lastSeq: 3, status: status))
    }

    @Test(arguments: SessionRules.unfinished)
    func anUnfinishedSessionIsNeverAcknowledged(status: OnboardingSession.Status) {
        // More events may come: having read all so far is no acknowledgement of the end.
        #expect(!SessionRules.acknowledges(after: 2, lastSeq: 2, status: status))
    }

    static func candidate(
        role: String = "worker", disabled: Bool = false, lastRegisteredAt: Double? = 500, running: Bool = false, inTeam: Bool = false,
        hasGrant: Bool = false
    ) -> UnconfirmedUserRules.Candidate {
        UnconfirmedUserRules.Candidate(
            id: "u1", role: role, disabled: disabled, lastRegisteredAt: lastRegisteredAt, hasRunningSession: running, inTeam: inTeam,
            hasGrant: hasGrant
        )
    }

    @Test func anAbandonedRegistrationIsRemoved() {
        #expect(UnconfirmedUserRules.isRemovable(Self.candidate(), cutoff: 1_000))
        #expect(UnconfirmedUserRules.isRemovable(Self.candidate(lastRegisteredAt: nil), cutoff: 1_000))
    }

    @Test(arguments: [
        candidate(role: "manager"), candidate(disabled: true), candidate(lastRegisteredAt: 1_000), candidate(running: true),
        candidate(inTeam: true), candidate(hasGrant: true),
    ])
    func anyoneSomeoneMeansToKeepOrStillRegisteringStays(candidate: UnconfirmedUserRules.Candidate) {
        #expect(!UnconfirmedUserRules.isRemovable(candidate, cutoff: 1_000))
    }
}
