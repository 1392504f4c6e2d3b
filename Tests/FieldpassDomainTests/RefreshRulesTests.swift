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

    @Test func aLiveTokenRotatesOnceAndItsSuccessorNeverOutlivesTheSignIn() {
        #expect(
            RefreshRules.decide(Self.token(), successorUnrotated: false, rotation: Self.rotation, now: Self.now)
                == .rotate(successorExpiresAt: Self.now + 600, audit: nil))
        #expect(
            RefreshRules.decide(Self.token(maxExpiresAt: Self.now + 60), successorUnrotated: false, rotation: Self.rotation, now: Self.now)
                == .rotate(successorExpiresAt: Self.now + 60, audit: nil))
    }

    @Test func aRotationOnADayTheDeviceWasNotSeenYetIsAudited() {
        let dayLater = Self.now + DeviceActivityAudit.day
        #expect(
            RefreshRules.decide(
                Self.token(expiresAt: dayLater + 1, maxExpiresAt: dayLater + 3600), successorUnrotated: false, rotation: Self.rotation,
                now: dayLater)
                == .rotate(successorExpiresAt: dayLater + 600, audit: .tokenRefreshed(Self.grant)))
    }

    @Test(arguments: [
        token(expiresAt: now), token(revokedAt: 5_000), token(userDisabledAt: 5_000), token(deviceRevokedAt: 5_000),
    ])
    func aTokenOutOfStandingIsRefusedWithoutCuttingAnythingOff(token: RefreshRules.Token) {
        #expect(!token.isHonoured(now: Self.now))
        #expect(!RefreshRules.needsSuccessorLookup(token, grace: 30, now: Self.now))
        #expect(RefreshRules.decide(token, successorUnrotated: true, rotation: Self.rotation, now: Self.now) == .refuse)
    }

    @Test func aRetryWithinTheGraceGetsTheSameSuccessor() {
        let token = Self.token(rotatedAt: Self.now - 30, sealed: [9, 9])
        #expect(RefreshRules.needsSuccessorLookup(token, grace: 30, now: Self.now))
        #expect(
            RefreshRules.decide(token, successorUnrotated: true, rotation: Self.rotation, now: Self.now) == .retry(sealedSuccessor: [9, 9]))
        #expect(!token.isLive(now: Self.now))
    }

    @Test func aReturnAfterTheGraceIsAReuseThatCutsTheDeviceOff() {
        let token = Self.token(rotatedAt: Self.now - 31, sealed: [9, 9])
        #expect(!RefreshRules.needsSuccessorLookup(token, grace: 30, now: Self.now))
        let decision = RefreshRules.decide(token, successorUnrotated: true, rotation: Self.rotation, now: Self.now)
        guard case .cutOff(let entry) = decision else {
            Issue.record("expected a cut-off, got \(decision)")
            return
        }
        #expect(
            entry
                == AuditRecord(
                    actor: "fieldpass", action: "device.revoke", target: "user:u1",
                    after: ["device_id": "d1", "reason": "refresh_token_reuse"]
                ))
    }

    @Test func aRetryAfterTheSuccessorWasRotatedTooIsAReuse() {
        let token = Self.token(rotatedAt: Self.now - 5, sealed: [9, 9])
        guard case .cutOff = RefreshRules.decide(token, successorUnrotated: false, rotation: Self.rotation, now: Self.now) else {
            Issue.record("a copy used after the device moved on must cut the device off")
            return
        }
    }

    @Test func withoutAGraceEveryReturnIsAReuse() {
        let token = Self.token(rotatedAt: Self.now, sealed: nil)
        guard case .cutOff = RefreshRules.decide(token, successorUnrotated: true, rotation: Self.rotation, now: Self.now) else {
            Issue.record("no sealed successor means no retry")
            return
        }
    }

    @Test func revokingSignsTheDeviceOutOnce() {
        #expect(RefreshRules.revocation(Self.token())?.after == ["device_id": "d1", "reason": "token_revocation"])
        #expect(RefreshRules.revocation(Self.token())?.actor == "user:u1")
        #expect(RefreshRules.revocation(Self.token(deviceRevokedAt: 5_000)) == nil)
    }
}
