import Foundation
import Testing
@testable import FieldpassDomain

/// What becomes of each shift a shared device reports from offline: decided with no store.
@Suite("Offline shift rules")
struct OfflineShiftRulesTests {
    static let now = BadgeRulesTests.now
    static let issued = now - 3600
    static let device = BadgeRulesTests.device()
    static let running = RunningOfflineShift(
        shiftID: "real", refreshTokenHash: "rh", refreshTokenExpiresAt: now + 600, refreshTokenMaxExpiresAt: now + 3600)

    static let claims = OfflineShiftReport.Permit(
        id: "p1", userID: "w", environmentID: "acme", keyThumbprint: "van-key", issuedAt: issued, expiresAt: issued + 7200)

    static func permit(withdrawnAt: Date? = nil, counted: Int = 0, device: String = "van") -> OfflinePermitRecord {
        OfflinePermitRecord(
            id: "p1", sharedDeviceID: device, environmentID: "acme", userID: "w", badgeID: "b", issuedAt: issued, expiresAt: issued + 7200,
            withdrawnAt: withdrawnAt, failedPinsCounted: counted)
    }

    static func facts(
        permit: OfflinePermitRecord? = permit(), person: UserRecord? = BadgeRulesTests.worker, disabledAt: Date? = nil,
        badge: BadgeRecord? = BadgeRulesTests.badge(), open: ShiftRecord? = nil, recorded: ShiftRecord? = nil
    ) -> OfflineShiftRules.Facts {
        OfflineShiftRules.Facts(
            device: device, open: open, permit: permit, person: person, personDisabledAt: disabledAt, badge: badge, recorded: recorded)
    }

    static func decide(
        _ claims: OfflineShiftReport.Permit? = claims, start: Date? = now - 600, end: Date? = now - 300, failed: Int = 0,
        facts: OfflineShiftRules.Facts = facts(), key: String = "van-key"
    ) -> (result: OfflineShiftResult, plan: DirectoryPlan) {
        OfflineShiftRules.reconcile(
            OfflineShiftReport(permit: claims, startedAt: start, endedAt: end, failedPins: failed), facts: facts, running: running,
            keyThumbprint: key, maxFailedPins: 5, skew: 60, now: now)
    }

    static func refusal(_ decided: (result: OfflineShiftResult, plan: DirectoryPlan)) -> OfflineShiftRefusal? {
        if case .refused(_, let reason) = decided.result { reason } else { nil }
    }

    @Test func eachReasonToRefuseIsItsOwnAndRecordsNoShift() {
        var otherEnvironment = Self.claims
        otherEnvironment.environmentID = "globex"
        var foreign = Self.claims
        foreign.keyThumbprint = "other-key"
        var expired = Self.claims
        expired.expiresAt = Self.now - 900
        var disabled = BadgeRulesTests.worker
        disabled.disabled = true
        let cases: [((result: OfflineShiftResult, plan: DirectoryPlan), OfflineShiftRefusal)] = [
            (Self.decide(nil), .permitInvalid),
            (Self.decide(facts: Self.facts(permit: nil)), .permitInvalid),
            (Self.decide(otherEnvironment), .permitInvalid),
            (Self.decide(foreign), .notThisDevice),
            (Self.decide(facts: Self.facts(permit: Self.permit(device: "other-van"))), .notThisDevice),
            (Self.decide(expired), .expired),
            (Self.decide(start: Self.now + 120, end: nil), .impossibleTime),
            (Self.decide(start: Self.now - 600, end: Self.now + 120), .impossibleTime),
            (Self.decide(start: Self.issued - 120, end: Self.issued), .impossibleTime),
            (Self.decide(facts: Self.facts(person: nil)), .userDisabled),
            (Self.decide(facts: Self.facts(person: disabled, disabledAt: Self.now - 900)), .userDisabled),
            (Self.decide(facts: Self.facts(permit: Self.permit(withdrawnAt: Self.now - 900))), .badgeRevoked),
            // The running shift would go on with tokens: a person disabled or a badge revoked since its start stops it.
            (Self.decide(end: nil, facts: Self.facts(person: disabled, disabledAt: Self.now - 60)), .userDisabled),
            (Self.decide(end: nil, facts: Self.facts(permit: Self.permit(withdrawnAt: Self.now - 60))), .badgeRevoked),
        ]
        for (decided, reason) in cases {
            #expect(Self.refusal(decided) == reason)
            #expect(!decided.plan.writes.contains { if case .recordOfflineShift = $0 { true } else { false } })
            #expect(!decided.plan.writes.contains { if case .startShift = $0 { true } else { false } })
        }
        // Disabled or revoked after the start: the ended shift happened while the permit held.
        var laterDisabled = Self.decide(facts: Self.facts(person: disabled, disabledAt: Self.now - 60))
        #expect(Self.refusal(laterDisabled) == nil)
        laterDisabled = Self.decide(facts: Self.facts(permit: Self.permit(withdrawnAt: Self.now - 60)))
        #expect(Self.refusal(laterDisabled) == nil)
    }

    @Test func anEndedShiftIsRecordedWithItsTimesAndEndsTheOnlineShiftItFollowed() throws {
        let online = ShiftRecord(id: "s0", sharedDeviceID: "van", userID: "v", email: "v@acme.test", startedAt: Self.now - 900)
        let decided = Self.decide(facts: Self.facts(open: online))
        guard case .accepted("p1", let shift?, true) = decided.result else {
            Issue.record("answered \(decided.result)")
            return
        }
        #expect(shift.startedAt == Self.now - 600 && shift.endedAt == Self.now - 300 && shift.endReason == .endedOffline)
        #expect(shift.offlinePermitID == "p1" && shift.amr == ["pin", "badge", "offline"])
        #expect(decided.plan.writes == [.endShift(online, reason: .nextWorker, actor: ShiftRules.systemActor), .recordOfflineShift(shift)])
        // An online shift that began after it is left alone.
        let later = ShiftRecord(id: "s2", sharedDeviceID: "van", userID: "v", email: "v@acme.test", startedAt: Self.now - 100)
        #expect(Self.decide(facts: Self.facts(open: later)).plan.writes.count == 1)
    }

    @Test func theRunningShiftBecomesTheDevicesShiftWithTokensBoundToItsKey() throws {
        let decided = Self.decide(end: nil)
        guard case .accepted("p1", let shift?, true) = decided.result else {
            Issue.record("answered \(decided.result)")
            return
        }
        #expect(shift.id == "real" && shift.isOpen && shift.startedAt == Self.now - 600)
        #expect(decided.plan.writes.contains(.createShiftDevice(id: "real", userID: "w", name: "Van 12")))
        #expect(decided.plan.writes.contains(.startShift(shift)))
        let token = decided.plan.writes.compactMap { if case .issueRefreshToken(let issue) = $0 { issue } else { nil } }
        #expect(token.map(\.dpopThumbprint) == ["van-key"] && token.map(\.deviceID) == ["real"])
    }

    @Test func aShiftReportedAgainIsAnsweredAsBeforeAndChangesNothing() {
        let recorded = ShiftRecord(id: "s1", sharedDeviceID: "van", userID: "w", email: "w@acme.test", startedAt: Self.now - 600)
        let decided = Self.decide(end: nil, facts: Self.facts(recorded: recorded))
        #expect(decided.result == .accepted(permitID: "p1", shift: recorded, new: false) && decided.plan.writes.isEmpty)
    }

    @Test func wrongPinsCountOnceTowardTheBadgeItWasIssuedAtAndLockIt() {
        let first = Self.decide(start: nil, end: nil, failed: 2)
        #expect(first.result == .accepted(permitID: "p1", shift: nil, new: false))
        #expect(
            first.plan.writes == [
                .countOfflinePinFailures(permitID: "p1", total: 2), .recordPinFailures(badgeID: "b", count: 2, locks: false),
            ])
        // The same total again counts nothing; a higher one counts what it adds, and locks at five.
        #expect(Self.decide(start: nil, end: nil, failed: 2, facts: Self.facts(permit: Self.permit(counted: 2))).plan.writes.isEmpty)
        let locking = Self.decide(
            start: nil, end: nil, failed: 6, facts: Self.facts(permit: Self.permit(counted: 2), badge: BadgeRulesTests.badge(failed: 2)))
        #expect(
            locking.plan.writes.prefix(2) == [
                .countOfflinePinFailures(permitID: "p1", total: 6), .recordPinFailures(badgeID: "b", count: 4, locks: true),
            ])
        #expect(locking.plan.writes.contains { if case .audit(let entry) = $0 { entry.action == "badge.lock" } else { false } })
        // A replaced badge is not the one the PINs were typed for: only the total is kept.
        var replaced = BadgeRulesTests.badge()
        replaced.id = "b2"
        #expect(
            Self.decide(start: nil, end: nil, failed: 1, facts: Self.facts(badge: replaced)).plan.writes == [
                .countOfflinePinFailures(permitID: "p1", total: 1)
            ])
        // Counted even when the shift is refused: the tries happened.
        let refused = Self.decide(start: Self.now + 600, end: nil, failed: 1)
        #expect(Self.refusal(refused) == .impossibleTime && refused.plan.writes.count == 2)
    }
}
