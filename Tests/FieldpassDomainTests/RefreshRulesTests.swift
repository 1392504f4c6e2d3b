import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Refresh rules, without a database")
struct RefreshRulesTests {
    static let grant = RefreshGrant(userID: "u1", deviceID: "d1", environmentID: "acme")
    static let rotation = RefreshRotation(oldHash: "old", newHash: "new", sealedSuccessor: [1, 2, 3], ttl: 600, grace: 30)
    static let now = 10_000.0

    static func token(
        rotatedAt: Double? = nil, sealed: [UInt8]? = nil, expiresAt: Double = 20_000, maxExpiresAt: Double = 50_000,
        revokedAt: Double? = nil, userDisabledAt: Double? = nil, deviceRevokedAt: Double? = nil, lastSeenAt: Double = now - 900
    ) -> RefreshRules.Token {
        RefreshRules.Token(
            grant: grant, createdAt: 1_000, expiresAt: expiresAt, maxExpiresAt: maxExpiresAt, revokedAt: revokedAt, rotatedAt: rotatedAt,
            successorHash: rotatedAt == nil ? nil : "next", successorSealed: sealed, userDisabledAt: userDisabledAt,
            deviceRevokedAt: deviceRevokedAt, deviceLastSeenAt: lastSeenAt
        )
    }

    /// The successor of `rotation` that a rotation at `now` stores, expiring at `expiresAt`.
    static func successor(expiresAt: Double, maxExpiresAt: Double = 50_000) -> DirectoryWrite {
        .issueRefreshToken(
            RefreshTokenIssue(
                hash: "new", userID: "u1", deviceID: "d1", expiresAt: expiresAt, maxExpiresAt: maxExpiresAt, replacedHash: "old",
                sealedSuccessor: [1, 2, 3]
            ))
    }

    @Test func aLiveTokenRotatesOnceAndItsSuccessorNeverOutlivesTheSignIn() {
        #expect(
            RefreshRules.decide(Self.token(), successor: nil, rotation: Self.rotation, now: Self.now)
                == RefreshRules.Decision(DirectoryPlan([Self.successor(expiresAt: Self.now + 600)]), outcome: .rotated(Self.grant)))
        #expect(
            RefreshRules.decide(Self.token(maxExpiresAt: Self.now + 60), successor: nil, rotation: Self.rotation, now: Self.now)
                == RefreshRules.Decision(
                    DirectoryPlan([Self.successor(expiresAt: Self.now + 60, maxExpiresAt: Self.now + 60)]), outcome: .rotated(Self.grant)))
    }

    @Test func aRotationOnADayTheDeviceWasNotSeenYetIsAudited() {
        let dayLater = Self.now + DeviceActivityAudit.day
        #expect(
            RefreshRules.decide(
                Self.token(expiresAt: dayLater + 1, maxExpiresAt: dayLater + 3600), successor: nil, rotation: Self.rotation,
                now: dayLater)
                == RefreshRules.Decision(
                    DirectoryPlan([
                        Self.successor(expiresAt: dayLater + 600, maxExpiresAt: dayLater + 3600), .audit(.tokenRefreshed(Self.grant)),
                    ]), outcome: .rotated(Self.grant)))
    }

    @Test(arguments: [
        token(expiresAt: now), token(revokedAt: 5_000), token(userDisabledAt: 5_000), token(deviceRevokedAt: 5_000),
    ])
    func aTokenOutOfStandingIsRefusedWithoutCuttingAnythingOff(token: RefreshRules.Token) {
        #expect(!token.isHonoured(now: Self.now))
        #expect(!RefreshRules.needsSuccessorLookup(token, grace: 30, now: Self.now))
        #expect(
            RefreshRules.decide(token, successor: Self.token(), rotation: Self.rotation, now: Self.now)
                == RefreshRules.Decision(outcome: .refused))
    }

    @Test func aRetryWithinTheGraceGetsTheSameSuccessorAndWritesNothing() {
        let token = Self.token(rotatedAt: Self.now - 30, sealed: [9, 9])
        #expect(RefreshRules.needsSuccessorLookup(token, grace: 30, now: Self.now))
        #expect(
            RefreshRules.decide(token, successor: Self.token(), rotation: Self.rotation, now: Self.now)
                == RefreshRules.Decision(outcome: .retried(Self.grant, sealedSuccessor: [9, 9])))
        #expect(!token.isLive(now: Self.now))
    }

    @Test func aReturnAfterTheGraceIsAReuseThatCutsTheDeviceOff() {
        let token = Self.token(rotatedAt: Self.now - 31, sealed: [9, 9])
        #expect(!RefreshRules.needsSuccessorLookup(token, grace: 30, now: Self.now))
        let entry = AuditRecord(
            actor: "fieldpass", action: "device.revoke", target: "user:u1", after: ["device_id": "d1", "reason": "refresh_token_reuse"]
        )
        #expect(
            RefreshRules.decide(token, successor: Self.token(), rotation: Self.rotation, now: Self.now)
                == RefreshRules.Decision(DirectoryPlan([.revokeDevice(id: "d1"), .audit(entry)]), outcome: .refused))
    }

    @Test func aRetryWhoseSuccessorWasRevokedIsRefusedAndCutsNothingOff() {
        let token = Self.token(rotatedAt: Self.now - 5, sealed: [9, 9])
        #expect(
            RefreshRules.decide(token, successor: Self.token(revokedAt: Self.now - 1), rotation: Self.rotation, now: Self.now)
                == RefreshRules.Decision(outcome: .refused),
            "a new sign-in of the installation revoked the successor: the earlier sign-in is over")
    }

    @Test func aRetryAfterTheSuccessorWasRotatedTooIsAReuse() {
        let token = Self.token(rotatedAt: Self.now - 5, sealed: [9, 9])
        let decision = RefreshRules.decide(
            token, successor: Self.token(rotatedAt: Self.now - 1, sealed: [8]), rotation: Self.rotation, now: Self.now)
        #expect(decision.outcome == .refused)
        #expect(decision.plan.writes.first == .revokeDevice(id: "d1"), "a copy used after the device moved on must cut the device off")
    }

    @Test func withoutAGraceEveryReturnIsAReuse() {
        let token = Self.token(rotatedAt: Self.now, sealed: nil)
        let decision = RefreshRules.decide(token, successor: Self.token(), rotation: Self.rotation, now: Self.now)
        #expect(decision.plan.writes.first == .revokeDevice(id: "d1"), "no sealed successor means no retry")
    }

    @Test func revokingSignsTheDeviceOutOnce() {
        let revocation = RefreshRules.revocation(Self.token(), provenThumbprint: nil)
        #expect(revocation.outcome == .revoked)
        let writes = revocation.plan.writes
        #expect(writes.first == .revokeDevice(id: "d1"))
        guard case .audit(let entry)? = writes.last, writes.count == 2 else {
            Issue.record("expected the revocation and its entry, got \(writes)")
            return
        }
        #expect(entry.after == ["device_id": "d1", "reason": "token_revocation"])
        #expect(entry.actor == "user:u1")
        #expect(RefreshRules.revocation(Self.token(deviceRevokedAt: 5_000), provenThumbprint: nil) == (.unchanged, .revoked))
    }

    @Test func aBoundTokenIsRevokedOnlyWithItsKeysProof() {
        var bound = Self.token()
        bound.grant.dpopThumbprint = "owner-key"
        for proof in [nil, "thief-key"] {
            #expect(RefreshRules.revocation(bound, provenThumbprint: proof) == (.unchanged, .proofRequired))
        }
        let owner = RefreshRules.revocation(bound, provenThumbprint: "owner-key")
        #expect(owner.outcome == .revoked && owner.plan.writes.first == .revokeDevice(id: "d1"))
    }

    @Test func aBoundTokenWithoutItsKeysProofChangesNothingAndItsOwnerStillRotates() {
        var bound = Self.token()
        bound.grant.dpopThumbprint = "owner-key"
        var rotated = Self.token(rotatedAt: Self.now - 3_600)
        rotated.grant.dpopThumbprint = "owner-key"
        var thief = Self.rotation
        for proof in [nil, "thief-key"] {
            thief.proof = proof.map { DPoPRules.AcceptedProof(thumbprint: $0, replayKey: "r", rememberUntil: Date()) }
            #expect(
                RefreshRules.decide(bound, successor: nil, rotation: thief, now: Self.now)
                    == RefreshRules.Decision(outcome: .proofRequired))
            // A rotated token's copy without the key is not a reuse: the device is not cut off.
            #expect(
                RefreshRules.decide(rotated, successor: nil, rotation: thief, now: Self.now)
                    == RefreshRules.Decision(outcome: .proofRequired))
        }
        var owner = Self.rotation
        owner.proof = DPoPRules.AcceptedProof(thumbprint: "owner-key", replayKey: "r", rememberUntil: Date())
        let decision = RefreshRules.decide(bound, successor: nil, rotation: owner, now: Self.now)
        #expect(decision.outcome == .rotated(bound.grant), "the grant says the key, which binds its access token too")
        guard case .issueRefreshToken(let successor) = decision.plan.writes.first else {
            Issue.record("a rotation stores its successor")
            return
        }
        #expect(successor.dpopThumbprint == "owner-key", "the successor stays bound to the key")
    }

    @Test func aShiftsTokenPastALimitIsRefusedAndEndsTheShift() {
        let shift = ShiftRecord(
            id: "d1", sharedDeviceID: "van", userID: "u1", email: "u1@acme.test", startedAt: Date(timeIntervalSince1970: Self.now - 500))
        var token = Self.token(lastSeenAt: Self.now - 100)
        token.grant.shift = shift
        let limits = ShiftLimits(maxShift: 1_000, idleTimeout: 100)
        var rotation = Self.rotation
        rotation.shiftLimits = limits
        let idle = RefreshRules.decide(token, successor: nil, rotation: rotation, now: Self.now)
        #expect(idle.outcome == .refused && idle.plan.writes == [.endShift(shift, reason: .idle, actor: ShiftRules.systemActor)])
        token.deviceLastSeenAt = Self.now - 10
        #expect(RefreshRules.decide(token, successor: nil, rotation: rotation, now: Self.now).outcome == .rotated(token.grant))
    }

    @Test func revokingAShiftsRefreshTokenSignsTheWorkerOut() {
        let shift = ShiftRecord(id: "d1", sharedDeviceID: "van", userID: "u1", email: "u1@acme.test", startedAt: Date())
        var token = Self.token()
        token.grant.shift = shift
        let revocation = RefreshRules.revocation(token, provenThumbprint: nil)
        #expect(revocation.outcome == .revoked)
        #expect(
            revocation.plan.writes == [
                .endShift(shift, reason: .signedOut, actor: "user:u1"), .audit(.deviceRevokedByItsToken(token.grant)),
            ])
    }

    @Test func aReusedShiftTokenEndsTheShiftAsItCutsTheDeviceOff() {
        let shift = ShiftRecord(id: "d1", sharedDeviceID: "van", userID: "u1", email: "u1@acme.test", startedAt: Date())
        var token = Self.token(rotatedAt: Self.now - 31, sealed: [9, 9])
        token.grant.shift = shift
        let decision = RefreshRules.decide(token, successor: Self.token(), rotation: Self.rotation, now: Self.now)
        #expect(decision.outcome == .refused)
        #expect(
            decision.plan.writes == [
                .endShift(shift, reason: .tokenReused, actor: ShiftRules.systemActor), .audit(.deviceRevokedOnReuse(token.grant)),
            ])
    }
}
