import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Revocations in memory, without a database")
struct RevocationSetTests {
    static func user(_ id: String = "u1", environmentID: String = "env", role: Role = .worker, disabled: Bool = false) -> UserRecord {
        UserRecord(
            id: id, environmentID: environmentID, email: "\(id)@example.test", role: role,
            createdAt: Date(timeIntervalSince1970: 0), disabled: disabled
        )
    }

    static let start = ContinuousClock.now

    /// A set that may answer from `start` on.
    static func trusted(_ set: RevocationSet = RevocationSet()) -> LiveRevocations {
        let live = LiveRevocations()
        live.replace(with: set)
        live.heartbeatReceived(live.heartbeatSent(at: start), now: Date())
        return live
    }

    @Test func aPersonNotRememberedIsReadFromTheStore() {
        let set = RevocationSet()
        #expect(set.standing(jti: "j1", userID: "u1", deviceID: "d1", environmentID: "env") == nil)
    }

    @Test func aRememberedPersonIsAnsweredWithRevokedTokensAndDevices() {
        var set = RevocationSet(revokedTokens: ["j2": 100], revokedDevices: ["d2"])
        set.remember(Self.user())
        #expect(
            set.standing(jti: "j1", userID: "u1", deviceID: "d1", environmentID: "env") == TokenStanding(user: Self.user(), revoked: false))
        #expect(set.standing(jti: "j2", userID: "u1", deviceID: "d1", environmentID: "env")?.revoked == true)
        #expect(set.standing(jti: "j1", userID: "u1", deviceID: "d2", environmentID: "env")?.revoked == true)
    }

    @Test func aPersonOfAnotherEnvironmentIsLeftToTheStore() {
        var set = RevocationSet()
        set.remember(Self.user())
        #expect(set.standing(jti: "j1", userID: "u1", deviceID: "d1", environmentID: "other") == nil)
    }

    @Test func aServiceTokenNeedsNoPerson() {
        let set = RevocationSet(revokedTokens: ["j2": 100])
        #expect(set.standing(jti: "j1", userID: nil, deviceID: nil, environmentID: "env") == TokenStanding(user: nil, revoked: false))
        #expect(set.standing(jti: "j2", userID: nil, deviceID: nil, environmentID: "env")?.revoked == true)
    }

    @Test func announcementsRevokeAndMakeAChangedPersonBeReadAgain() {
        var set = RevocationSet()
        set.remember(Self.user())
        set.apply(.token(jti: "j1", expiresAt: 100))
        set.apply(.device(id: "d1"))
        #expect(set.revokedTokens == ["j1": 100])
        #expect(set.revokedDevices == ["d1"])
        set.apply(.user(id: "u1"))
        #expect(set.standing(jti: "j9", userID: "u1", deviceID: "d9", environmentID: "env") == nil)
    }

    @Test func whatAPersonMayReachIsAnsweredUntilAChangeToThemIsAnnounced() {
        var set = RevocationSet()
        let facts = AccessFacts(user: Self.user(), teams: ["t1"], grants: ["common": .write], teamNames: ["t1": "North"])
        #expect(set.accessFacts(userID: "u1", environmentID: "env") == nil)
        set.remember(facts)
        #expect(set.accessFacts(userID: "u1", environmentID: "env") == facts)
        #expect(set.accessFacts(userID: "u1", environmentID: "other") == nil)
        #expect(set.standing(jti: "j1", userID: "u1", deviceID: "d1", environmentID: "env")?.user == Self.user())
        set.apply(.user(id: "u2"))
        #expect(set.accessFacts(userID: "u1", environmentID: "env") == facts)
        set.apply(.user(id: "u1"))
        #expect(set.accessFacts(userID: "u1", environmentID: "env") == nil)
        #expect(set.standing(jti: "j1", userID: "u1", deviceID: "d1", environmentID: "env") == nil)
    }

    @Test func reachReadBeforeAChangeIsNotRemembered() {
        let live = Self.trusted()
        guard case .unknown(let generation?) = live.accessFacts(userID: "u1", environmentID: "env", now: Self.start) else {
            Issue.record("a trusted set must hand out a generation")
            return
        }
        live.apply(.user(id: "u1"))
        live.remember(AccessFacts(user: Self.user(), teams: [], grants: [:]), ifUnchangedSince: generation)
        #expect(live.accessFacts(userID: "u1", environmentID: "env", now: Self.start) == .unknown(generation: generation + 1))
    }

    @Test func aRevokedTokenIsForgottenOnlyOnceItFailsVerificationAnyway() {
        var set = RevocationSet(revokedTokens: ["old": 1_000, "young": 2_000])
        set.dropExpired(now: Date(timeIntervalSince1970: 1_000 + RevocationSet.expiryMargin - 1))
        #expect(set.revokedTokens.keys.sorted() == ["old", "young"])
        set.dropExpired(now: Date(timeIntervalSince1970: 1_000 + RevocationSet.expiryMargin))
        #expect(set.revokedTokens == ["young": 2_000])
    }

    @Test(arguments: [
        StandingChange.user(id: "0d5f-user"), .device(id: "dev-1"), .token(jti: "a:b:c", expiresAt: 1_700_000_000.5),
    ])
    func aChangeSurvivesItsPayload(change: StandingChange) {
        #expect(StandingChange(payload: change.payload) == change)
    }

    @Test(arguments: ["events", "realms", "beat:x:1", "user:", "token:soon:j1", "token:12", "device"])
    func otherPayloadsAreNoChange(payload: String) {
        #expect(StandingChange(payload: payload) == nil)
    }

    @Test func nothingIsTrustedBeforeAHeartbeatComesBack() {
        var freshness = StandingFreshness()
        #expect(!freshness.isTrusted(at: Self.start))
        let beat = freshness.send(at: Self.start)
        #expect(!freshness.isTrusted(at: Self.start))
        freshness.received(beat)
        #expect(freshness.isTrusted(at: Self.start + StandingFreshness.bound))
        #expect(!freshness.isTrusted(at: Self.start + StandingFreshness.bound + .milliseconds(1)))
    }

    @Test func trustCountsFromWhenTheLatestHeartbeatWasSentWhateverTheOrderTheyComeBackIn() {
        var freshness = StandingFreshness()
        let first = freshness.send(at: Self.start)
        let second = freshness.send(at: Self.start + .milliseconds(500))
        freshness.received(second)
        freshness.received(first)
        #expect(freshness.hasConfirmed(first))
        #expect(freshness.isTrusted(at: Self.start + .milliseconds(1_400)))
    }

    @Test func aLostListenerIsDistrustedUntilANewHeartbeatComesBack() {
        var freshness = StandingFreshness()
        let before = freshness.send(at: Self.start)
        let confirmed = freshness.send(at: Self.start)
        freshness.received(confirmed)
        freshness.distrust()
        #expect(!freshness.isTrusted(at: Self.start))
        freshness.received(before)
        #expect(!freshness.isTrusted(at: Self.start))
        let after = freshness.send(at: Self.start)
        freshness.received(after)
        #expect(freshness.isTrusted(at: Self.start))
    }

    @Test func liveRevocationsAnswerOnlyWhileFresh() {
        let live = Self.trusted(RevocationSet(revokedDevices: ["d1"]))
        #expect(
            live.lookup(jti: "j", userID: nil, deviceID: "d1", environmentID: "env", now: Self.start)
                == .known(TokenStanding(user: nil, revoked: true)))
        let stale = Self.start + StandingFreshness.bound + .milliseconds(1)
        #expect(live.lookup(jti: "j", userID: nil, deviceID: "d1", environmentID: "env", now: stale) == .unknown(generation: nil))
        live.distrust()
        #expect(live.lookup(jti: "j", userID: nil, deviceID: "d1", environmentID: "env", now: Self.start) == .unknown(generation: nil))
    }

    @Test func aPersonReadBeforeAChangeToThemIsNotRemembered() {
        let live = Self.trusted()
        guard case .unknown(let generation?) = live.lookup(jti: "j", userID: "u1", deviceID: "d1", environmentID: "env", now: Self.start)
        else {
            Issue.record("a person not remembered must be read with a generation")
            return
        }
        // The store was read, then someone disabled the person before the answer was kept.
        live.apply(.user(id: "u1"))
        live.remember(Self.user(), ifUnchangedSince: generation)
        #expect(
            live.lookup(jti: "j", userID: "u1", deviceID: "d1", environmentID: "env", now: Self.start)
                == .unknown(generation: generation + 1))
        live.remember(Self.user(disabled: true), ifUnchangedSince: generation + 1)
        #expect(
            live.lookup(jti: "j", userID: "u1", deviceID: "d1", environmentID: "env", now: Self.start)
                == .known(TokenStanding(user: Self.user(disabled: true), revoked: false)))
    }

    @Test func reEnablingAPersonIsSeenAtTheNextRead() {
        let live = Self.trusted()
        live.remember(Self.user(disabled: true), ifUnchangedSince: 1)
        live.apply(.user(id: "u1"))
        guard case .unknown(let generation?) = live.lookup(jti: "j", userID: "u1", deviceID: nil, environmentID: "env", now: Self.start)
        else {
            Issue.record("a changed person must be read again")
            return
        }
        live.remember(Self.user(disabled: false), ifUnchangedSince: generation)
        #expect(
            live.lookup(jti: "j", userID: "u1", deviceID: nil, environmentID: "env", now: Self.start)
                == .known(TokenStanding(user: Self.user(), revoked: false)))
    }

    @Test func aWaitForAHeartbeatThatNeverComesDistrusts() async {
        let live = Self.trusted()
        let lost = live.heartbeatSent(at: Self.start)
        await live.waitForHeartbeat(lost, atMost: .milliseconds(10))
        #expect(!live.isTrusted(at: Self.start))
    }

    @Test func aWaitEndsWhenItsHeartbeatComesBack() async {
        let live = Self.trusted()
        // The instants are fixed: on a loaded machine the wait may take longer than the bound.
        let beat = live.heartbeatSent(at: Self.start + .milliseconds(100))
        async let waited: Void = live.waitForHeartbeat(beat, atMost: .seconds(30))
        try? await Task.sleep(for: .milliseconds(20))
        live.heartbeatReceived(beat, now: Date())
        await waited
        #expect(live.isTrusted(at: Self.start + .milliseconds(100) + StandingFreshness.bound))
    }
}
