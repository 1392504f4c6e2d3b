import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Session moves, without a database")
struct SessionMoveTests {
    static let login = SessionRulesTests.login

    @Test func sessionsMovedTogetherGetTheirEventsInIdOrderWhateverOrderTheyWereFoundIn() {
        #expect(SessionMove.eventOrder(["s3", "s1", "s2"], id: { $0 }) == ["s1", "s2", "s3"])
    }

    @Test func theSweepExpiresEverySessionUnderWayPastItsExpiryAndCountsIt() {
        let move = SessionRules.overdueExpiry(now: 1_000)
        #expect(move.selection == .overdue)
        #expect(move.at == 1_000)
        #expect(move.transition == SessionRules.expiry)
        #expect(move.outcomes == [.expired])
        #expect(move.events == [.sessionExpired])
        #expect(SessionRules.sweep(now: 1_000, deliveredBefore: 700, deleteBefore: 400).first == .expireOverdue(move))
    }

    @Test func anIdentityResetEndsTheSignInsUnderWayWithoutCountingAnExpiredOnboarding() {
        let move = SessionRules.signInsEnded(userID: "u1", now: 1_000)
        #expect(move.selection == .person(userID: "u1"))
        #expect(move.transition == SessionRules.expiry)
        #expect(move.outcomes.isEmpty)
        #expect(move.events == [.sessionExpired])
    }

    @Test func aSignInIntoAFilledRealmCompletesAtOnceAndCountsBothSteps() {
        let plan = SessionRules.signingIn(Self.login, announcedRealm: "/users/u1", realmInitialized: true, now: 1_000)
        #expect(plan.move.selection == .unexpiredSession(id: "s1"))
        #expect(plan.move.at == 1_000)
        #expect(plan.move.transition == SessionTransition(from: [.exchanging], to: .completed))
        #expect(plan.move.outcomes == [.signedIn, .dataReady])
        #expect(plan.move.events.map(\.type) == ["token", "realm_initialized", "data_ready"])
        #expect(
            plan.refreshToken
                == RefreshTokenIssue(hash: "h", userID: "u1", deviceID: "d1", expiresAt: 3_000, maxExpiresAt: 9_000))
    }

    @Test func aSignInRevokesItsDevicesLiveRefreshTokensBeforeItsOwnIsStored() {
        let plan = SessionRules.signingIn(Self.login, announcedRealm: "/users/u1", realmInitialized: false, now: 1_000)
        #expect(plan.superseded == SupersededRefreshTokens(deviceID: "d1", at: 1_000))
        #expect(plan.superseded.deviceID == plan.refreshToken.deviceID)
    }

    @Test func aSignInIntoAnEmptyRealmWaitsForItsData() {
        let plan = SessionRules.signingIn(Self.login, announcedRealm: "/users/u1", realmInitialized: false, now: 1_000)
        #expect(plan.move.transition == SessionRules.signIn)
        #expect(plan.move.outcomes == [.signedIn])
        #expect(plan.move.events.map(\.type) == ["token", "realm_initialized"])
    }

    @Test func aFailureIsCountedByItsReasonAndAuditedOnlyWhenRefused() {
        let ordinary = LoginFailure(error: "access_denied", description: "no", audited: false)
        let move = SessionRules.failing(sessionID: "s1", ordinary, now: 1_000)
        #expect(move.selection == .session(id: "s1"))
        #expect(move.transition == SessionRules.failure)
        #expect(move.outcomes == [.failed])
        #expect(move.reason == "access_denied")
        #expect(move.events == [.loginFailed(error: "access_denied", description: "no")])
        #expect(SessionRules.failureAudit(ordinary, userID: "u1", deviceID: "d1") == nil)
        let refused = LoginFailure(error: "browser_mismatch", description: "other browser", audited: true)
        #expect(SessionRules.failing(sessionID: "s1", refused, now: 1_000).reason == "browser_mismatch")
        #expect(
            SessionRules.failureAudit(refused, userID: "u1", deviceID: "d1")
                == .loginFailed(error: "browser_mismatch", userID: "u1", deviceID: "d1"))
        #expect(
            SessionRules.failing(sessionID: "s1", LoginFailure(error: "made_up", description: "", audited: false), now: 1_000).reason
                == "other")
    }

    @Test func aRealmIsMarkedOnceAndCompletesItsPersonsSignedInSessions() {
        let realm = RealmFacts(userID: "u1", environmentID: "acme", initialized: false)
        let plan = SessionRules.realmInitialization(realm, askedIn: "acme", announcedRealm: "/users/u1", now: 1_000)
        #expect(plan?.marksRealm == true)
        #expect(plan?.move == SessionRules.realmFilled(userID: "u1", announcedRealm: "/users/u1", now: 1_000))
        #expect(plan?.move.selection == .unexpiredOfPerson(userID: "u1"))
        #expect(plan?.move.outcomes == [.dataReady])
        #expect(plan?.move.events == [.dataReady(realmPath: "/users/u1")])
        var filled = realm
        filled.initialized = true
        #expect(SessionRules.realmInitialization(filled, askedIn: nil, announcedRealm: "/users/u1", now: 1_000)?.marksRealm == false)
        #expect(SessionRules.realmInitialization(realm, askedIn: "globex", announcedRealm: "/users/u1", now: 1_000) == nil)
    }

    @Test func aCallbackTakesOnlyItsOwnWaitingSessionAndUsesItsStateUp() {
        let move = SessionRules.callback(state: "st", now: 1_000)
        #expect(move.selection == .callback(state: "st"))
        #expect(move.selection.usesState)
        #expect(!SessionSelection.session(id: "s1").usesState)
        #expect(move.transition == SessionRules.exchange)
        #expect(move.outcomes.isEmpty && move.events.isEmpty)
    }

    @Test func aRegistrationIsTheLiveDeviceOfItsInstallationOrANewOne() {
        let device = RegisteredDevice(reusedInstallation: "install-1", newID: "new")
        #expect(device.id(live: "d1") == "d1")
        #expect(device.id(live: nil) == "new")
        #expect(RegisteredDevice(reusedInstallation: nil, newID: "new").id(live: nil) == "new")
    }

    @Test func onlyAKnownPersonsInstallationIsLookedUp() {
        let device = RegisteredDevice(reusedInstallation: "install-1", newID: "new")
        #expect(device.installationToFind(personCreated: false) == "install-1")
        #expect(device.installationToFind(personCreated: true) == nil)
        #expect(RegisteredDevice(reusedInstallation: nil, newID: "new").installationToFind(personCreated: false) == nil)
    }

    @Test func anAcknowledgementEndsAFinishedSessionAndDropsItsTokenEvent() {
        #expect(
            SessionRules.acknowledgement(sessionID: "s1", after: 3, lastSeq: 3, status: .completed, now: 1_000)
                == SessionEnd(sessionID: "s1", at: 1_000, droppedEventType: "token"))
        #expect(SessionRules.acknowledgement(sessionID: "s1", after: 2, lastSeq: 3, status: .completed, now: 1_000) == nil)
        #expect(SessionRules.acknowledgement(sessionID: "s1", after: 3, lastSeq: 3, status: .authenticated, now: 1_000) == nil)
    }

    @Test func theRetentionRemovesOnlyTheRemovableWithTheirPersonalRealmsGrants() {
        let removable = SessionRulesTests.candidate()
        var kept = SessionRulesTests.candidate(inTeam: true)
        kept.id = "u2"
        let removal = UnconfirmedUserRules.removal([removable, kept], cutoff: 1_000)
        #expect(removal.userIDs == ["u1"])
        #expect(removal.personalRealms == [RealmPath.personal(userID: "u1")])
    }
}
