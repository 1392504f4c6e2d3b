import Foundation
import Testing
@testable import FieldpassDomain

/// When shifts on shared devices start and end, and what each end writes: decided with no store.
@Suite("Shift rules")
struct ShiftRulesTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    static func device(state: SharedDeviceState = .enrolled) -> SharedDeviceRecord {
        var device = SharedDeviceRecord(
            id: "d1", environmentID: "acme", name: "Van 12", teamID: "north", createdAt: now, enrollmentExpiresAt: now)
        if state != .awaitingEnrollment { device.enrolledAt = now }
        if state == .unenrolled { device.unenrolledAt = now }
        return device
    }

    static func shift(_ id: String, user: String = "u1", startedAt: Date = now) -> ShiftRecord {
        ShiftRecord(id: id, sharedDeviceID: "d1", userID: user, email: "\(user)@acme.test", startedAt: startedAt)
    }

    /// The shifts a plan ends, with their reasons (each end revokes its shift's device record
    /// and audits itself as it is written).
    static func ends(_ plan: DirectoryPlan) -> [String: ShiftEndReason] {
        var ended: [String: ShiftEndReason] = [:]
        for write in plan.writes {
            if case .endShift(let shift, let reason, _) = write { ended[shift.id] = reason }
        }
        return ended
    }

    @Test func theNextWorkersSignInEndsTheOpenShiftFirst() {
        let plan = ShiftRules.start(Self.shift("s2", user: "u2"), device: Self.device(), open: Self.shift("s1"))
        #expect(Self.ends(plan) == ["s1": .nextWorker])
        let started = plan.writes.firstIndex(of: .startShift(Self.shift("s2", user: "u2")))
        let ended = plan.writes.firstIndex { if case .endShift = $0 { true } else { false } }
        #expect(started != nil && ended != nil && ended! < started!)
        let audited = plan.writes.compactMap { if case .audit(let entry) = $0 { entry.action } else { nil } }
        #expect(audited == ["shift.start"])
        #expect(plan.writes.first == .endShift(Self.shift("s1"), reason: .nextWorker, actor: ShiftRules.systemActor))
    }

    @Test func aSignInOnAFreeDeviceOnlyStartsAShift() {
        let plan = ShiftRules.start(Self.shift("s1"), device: Self.device(), open: nil)
        #expect(Self.ends(plan).isEmpty)
        #expect(plan.writes.contains(.startShift(Self.shift("s1"))))
    }

    @Test func aDeviceUnenrolledSinceTheTokensWereSignedEndsTheShiftAtOnce() {
        for device in [Self.device(state: .unenrolled), nil] {
            let plan = ShiftRules.start(Self.shift("s1"), device: device, open: nil)
            #expect(plan.writes.contains(.startShift(Self.shift("s1"))))
            #expect(Self.ends(plan) == ["s1": .unenrolled])
        }
    }

    @Test func anEndedShiftEndsNoMore() {
        var ended = Self.shift("s1")
        ended.endedAt = Self.now
        #expect(ShiftRules.end(ended, .signedOut, actor: "x").writes.isEmpty)
        #expect(ShiftRules.end(nil, .signedOut, actor: "x").writes.isEmpty)
    }

    @Test func signingOutIsTheWorkersOwnEnd() {
        let plan = ShiftRules.signOut(Self.shift("s1"))
        #expect(plan.writes == [.endShift(Self.shift("s1"), reason: .signedOut, actor: "user:u1")])
    }

    @Test func anAdminOrTheTeamsManagerEndsAShiftAndNobodyElse() throws {
        let admin = DirectoryCaller.admin(
            UserRecord(id: "a", environmentID: "acme", email: "a@acme.test", role: .admin, createdAt: Self.now, disabled: false))
        let manager = DirectoryCaller.admin(
            UserRecord(id: "m", environmentID: "acme", email: "m@acme.test", role: .manager, createdAt: Self.now, disabled: false))
        let plan = try ShiftRules.endByAdmin(Self.device(), open: Self.shift("s1"), callerTeams: [], by: admin)
        #expect(plan.writes == [.endShift(Self.shift("s1"), reason: .endedByAdmin, actor: "user:a")])
        #expect(
            Self.ends(try ShiftRules.endByAdmin(Self.device(), open: Self.shift("s1"), callerTeams: ["north"], by: manager)) == [
                "s1": .endedByAdmin
            ])
        #expect(throws: DirectoryError.unknownDevice) {
            try ShiftRules.endByAdmin(Self.device(), open: Self.shift("s1"), callerTeams: ["south"], by: manager)
        }
        #expect(throws: DirectoryError.unknownDevice) { try ShiftRules.endByAdmin(nil, open: nil, callerTeams: [], by: admin) }
        #expect(try ShiftRules.endByAdmin(Self.device(), open: nil, callerTeams: [], by: admin).writes.isEmpty)
    }

    @Test func aShiftReachesItsLengthFirstThenItsIdleTime() {
        let limits = ShiftLimits(maxShift: 100, idleTimeout: 10)
        let start = Self.now.timeIntervalSince1970
        #expect(limits.reached(startedAt: start, lastSeenAt: start + 50, now: start + 59) == nil)
        #expect(limits.reached(startedAt: start, lastSeenAt: start + 50, now: start + 60) == .idle)
        #expect(limits.reached(startedAt: start, lastSeenAt: start + 95, now: start + 100) == .maxShift)
        #expect(limits.reached(startedAt: start, lastSeenAt: nil, now: start + 10) == .idle)
        let ended = ShiftRules.limit(Self.shift("s1"), deviceLastSeenAt: start, limits: limits, now: start + 10)
        #expect(ended.map(Self.ends) == ["s1": .idle])
        #expect(ShiftRules.limit(Self.shift("s1"), deviceLastSeenAt: start, limits: limits, now: start + 9) == nil)
    }

    @Test func unenrollingEndsTheOpenShift() throws {
        let admin = DirectoryCaller.cli(environmentID: "acme")
        let plan = try SharedDeviceRules.unenroll(Self.device(), open: Self.shift("s1"), callerTeams: [], by: admin)
        #expect(Self.ends(plan) == ["s1": .unenrolled] && plan.writes.contains(.unenrollSharedDevice(id: "d1")))
    }

    @Test func theFeedTellsShiftsStartAndEndWithTheDeviceAndReason() {
        let started = LifecycleEventRules.events(for: .shiftStarted(Self.shift("s1")))
        #expect(started.map(\.type) == [.shiftStarted] && started.first?.device?.id == "d1" && started.first?.user?.id == "u1")
        #expect(started.first?.actor == "user" && started.first?.after == ["shift_id": "s1"])
        let ended = LifecycleEventRules.events(for: .shiftEnded(Self.shift("s1"), reason: .nextWorker, actor: ShiftRules.systemActor))
        #expect(ended.map(\.type) == [.shiftEnded] && ended.first?.reason == "next_worker" && ended.first?.actor == "fieldpass")
    }
}
