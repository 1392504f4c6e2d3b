import Foundation
import Testing
@testable import FieldpassDomain

/// Who looks after badges, and what a sign-in with one does: decided with no store.
@Suite("Badge rules")
struct BadgeRulesTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let worker = UserRecord(id: "w", environmentID: "acme", email: "w@acme.test", role: .worker, createdAt: now, disabled: false)
    static let proof = DPoPRules.AcceptedProof(thumbprint: "van-key", replayKey: "r", rememberUntil: now + 60)

    static func badge(
        failed: Int = 0, temporary: Bool = false, issuedBy: String? = nil, locked: Bool = false, expiresIn: TimeInterval = 3600
    ) -> BadgeRecord {
        BadgeRecord(
            id: "b", userID: "w", environmentID: "acme", badgeHash: "bh", pinHash: "ph", pinTemporary: temporary, pinIssuedBy: issuedBy,
            failedPins: failed, lockedAt: locked ? now : nil, issuedAt: now, expiresAt: now + expiresIn)
    }

    static let manager = DirectoryCaller.admin(
        UserRecord(id: "m", environmentID: "acme", email: "m@acme.test", role: .manager, createdAt: now, disabled: false))
    static let admin = DirectoryCaller.admin(
        UserRecord(id: "a", environmentID: "acme", email: "a@acme.test", role: .admin, createdAt: now, disabled: false))

    static func device(environment: String = "acme", enrolled: Bool = true) -> SharedDeviceRecord {
        SharedDeviceRecord(
            id: "van", environmentID: environment, name: "Van 12", teamID: nil, createdAt: now, enrollmentExpiresAt: now,
            enrolledAt: enrolled ? now : nil, keyThumbprint: enrolled ? "van-key" : nil)
    }

    static func attempt(matched: Bool, checked: String = "ph", newPin: String? = nil) -> BadgeAttempt {
        BadgeAttempt(
            badgeHash: "bh", checkedPinHash: checked, pinMatched: matched, newPinHash: newPin, proof: proof, shiftID: "s1",
            refreshTokenHash: "rh", refreshTokenExpiresAt: now + 600, refreshTokenMaxExpiresAt: now + 3600,
            settings: BadgeSettings(maxFailedPins: 5))
    }

    static func signIn(
        _ attempt: BadgeAttempt, badge: BadgeRecord? = badge(), person: UserRecord? = worker, device: SharedDeviceRecord? = device()
    )
        -> (outcome: BadgeOutcome, plan: DirectoryPlan)
    {
        BadgeRules.signIn(attempt, badge: badge, person: person, device: device, open: nil, now: now)
    }

    @Test func everythingButThePinIsRefusedAlikeAndChangesNothing() {
        var disabled = Self.worker
        disabled.disabled = true
        let cases: [(BadgeRecord?, UserRecord?, SharedDeviceRecord?)] = [
            (nil, Self.worker, Self.device()), (Self.badge(expiresIn: 0), Self.worker, Self.device()),
            (Self.badge(), disabled, Self.device()), (Self.badge(), nil, Self.device()), (Self.badge(), Self.worker, nil),
            (Self.badge(), Self.worker, Self.device(enrolled: false)), (Self.badge(), Self.worker, Self.device(environment: "globex")),
        ]
        for (badge, person, device) in cases {
            for matched in [true, false] {
                let decided = Self.signIn(Self.attempt(matched: matched), badge: badge, person: person, device: device)
                #expect(decided.outcome == .refused && decided.plan.writes.isEmpty)
            }
        }
    }

    @Test func wrongPinsCountAndTheFifthLocksAudited() {
        let first = Self.signIn(Self.attempt(matched: false))
        #expect(
            first.outcome == .wrongPin(attemptsLeft: 4) && first.plan.writes == [.recordPinFailures(badgeID: "b", count: 1, locks: false)])
        let fifth = Self.signIn(Self.attempt(matched: false), badge: Self.badge(failed: 4))
        #expect(fifth.outcome == .locked && fifth.plan.writes.first == .recordPinFailures(badgeID: "b", count: 1, locks: true))
        #expect(fifth.plan.writes.contains { if case .audit(let entry) = $0 { entry.action == "badge.lock" } else { false } })
        // Locked: even the right PIN is refused, and nothing more counts.
        for badge in [Self.badge(failed: 5), Self.badge(failed: 1, locked: true)] {
            let right = Self.signIn(Self.attempt(matched: true), badge: badge)
            #expect(right.outcome == .locked && right.plan.writes.isEmpty)
        }
    }

    @Test func aTemporaryPinWorksOnlyWithANewOneAndItsShiftNamesTheIssuer() {
        let without = Self.signIn(Self.attempt(matched: true), badge: Self.badge(temporary: true, issuedBy: "user:m"))
        #expect(without.outcome == .pinChangeRequired && without.plan.writes.isEmpty)
        let with = Self.signIn(Self.attempt(matched: true, newPin: "new"), badge: Self.badge(temporary: true, issuedBy: "user:m"))
        guard case .signedIn(let shift) = with.outcome else {
            Issue.record("\(with.outcome)")
            return
        }
        #expect(shift.id == "s1" && shift.sharedDeviceID == "van" && shift.userID == "w")
        #expect(shift.amr == ["pin", "badge", "temporary_pin"] && shift.pinIssuedBy == "user:m")
        let signedIn = with.plan.writes.compactMap {
            if case .audit(let entry) = $0, entry.action == "badge.sign_in" { entry } else { nil }
        }
        #expect(signedIn.count == 1 && signedIn.first?.after?["pin_issued_by"] == "user:m")
        #expect(with.plan.writes.first == .setBadgePin(badgeID: "b", pinHash: "new", temporary: false, issuedBy: nil))
        #expect(with.plan.writes.contains(.startShift(shift)))
        #expect(with.plan.writes.contains(.createShiftDevice(id: "s1", userID: "w", name: "Van 12")))
    }

    @Test func aRightPinStartsTheShiftAndForgetsTheFailures() {
        let decided = Self.signIn(Self.attempt(matched: true), badge: Self.badge(failed: 3))
        guard case .signedIn = decided.outcome else {
            Issue.record("\(decided.outcome)")
            return
        }
        #expect(decided.plan.writes.first == .setBadgePin(badgeID: "b", pinHash: "ph", temporary: false, issuedBy: nil))
        // The worker's own PIN: nobody else's word, and nobody named.
        guard case .signedIn(let shift) = decided.outcome else { return }
        #expect(shift.amr == ["pin", "badge"] && shift.pinIssuedBy == nil)
        let signedIn = decided.plan.writes.compactMap {
            if case .audit(let entry) = $0, entry.action == "badge.sign_in" { entry } else { nil }
        }
        #expect(signedIn.count == 1 && signedIn.first?.after?["pin_issued_by"] == nil)
        let issued = decided.plan.writes.compactMap { if case .issueRefreshToken(let issue) = $0 { issue } else { nil } }
        #expect(issued.map(\.deviceID) == ["s1"] && issued.map(\.dpopThumbprint) == ["van-key"])
    }

    @Test func aPinResetMeanwhileIsNeitherARightNorAWrongPin() {
        let decided = Self.signIn(Self.attempt(matched: false, checked: "old-hash"))
        #expect(decided.outcome == .refused && decided.plan.writes.isEmpty)
    }

    @Test func anAdminLooksAfterEveryBadgeAManagerHisTeamMatesNobodyElse() {
        let (manager, admin) = (Self.manager, Self.admin)
        var teamAdmin = Self.worker
        teamAdmin.role = .admin
        var fellowManager = Self.worker
        fellowManager.role = .manager
        #expect(DirectoryAuthority.looksAfter(teamAdmin, personTeams: [], callerTeams: [], admin))
        #expect(DirectoryAuthority.looksAfter(Self.worker, personTeams: ["north"], callerTeams: ["north", "south"], manager))
        #expect(!DirectoryAuthority.looksAfter(Self.worker, personTeams: ["east"], callerTeams: ["north"], manager))
        #expect(!DirectoryAuthority.looksAfter(Self.worker, personTeams: [], callerTeams: [], .admin(Self.worker)))
        // A manager never gets an admin's or a fellow manager's badge, team-mates or not: it would sign him in as them.
        for higher in [teamAdmin, fellowManager] {
            #expect(!DirectoryAuthority.looksAfter(higher, personTeams: ["north"], callerTeams: ["north"], manager))
            #expect(throws: DirectoryError.unknownUser) {
                try BadgeRules.resetPin(
                    Self.badge(), pinHash: "t", person: higher, personTeams: ["north"], callerTeams: ["north"], managersIssue: true,
                    by: manager)
            }
        }
        #expect(throws: DirectoryError.unknownUser) {
            try BadgeRules.issue(
                Self.badge(), person: Self.worker, personTeams: ["east"], callerTeams: ["north"], managersIssue: true, by: manager)
        }
        #expect(throws: DirectoryError.unknownBadge) {
            try BadgeRules.revoke(nil, person: Self.worker, personTeams: [], callerTeams: [], by: admin)
        }
        let reset = try? BadgeRules.resetPin(
            Self.badge(), pinHash: "t", person: Self.worker, personTeams: [], callerTeams: [], managersIssue: false, by: admin)
        #expect(reset?.writes.first == .setBadgePin(badgeID: "b", pinHash: "t", temporary: true, issuedBy: "user:a"))
    }

    @Test func onlyAdminsMakeTemporaryPinsUnlessTheEnvironmentLetsManagersAndTheBadgeRemembersWho() throws {
        // His team's worker, whose badge he may revoke: without the environment's say, no PIN of his making.
        #expect(DirectoryAuthority.looksAfter(Self.worker, personTeams: ["north"], callerTeams: ["north"], Self.manager))
        #expect(throws: DirectoryError.notAllowed(.administer)) {
            try BadgeRules.issue(
                Self.badge(), person: Self.worker, personTeams: ["north"], callerTeams: ["north"], managersIssue: false, by: Self.manager)
        }
        #expect(throws: DirectoryError.notAllowed(.administer)) {
            try BadgeRules.resetPin(
                Self.badge(), pinHash: "t", person: Self.worker, personTeams: ["north"], callerTeams: ["north"], managersIssue: false,
                by: Self.manager)
        }
        // Refused before the person is looked at: a manager learns nothing of who exists.
        #expect(throws: DirectoryError.notAllowed(.administer)) {
            try BadgeRules.issue(Self.badge(), person: nil, personTeams: [], callerTeams: [], managersIssue: false, by: Self.manager)
        }
        #expect(throws: Never.self) {
            try BadgeRules.revoke(Self.badge(), person: Self.worker, personTeams: ["north"], callerTeams: ["north"], by: Self.manager)
        }
        let makers: [(DirectoryCaller, Bool)] = [(Self.admin, false), (.cli(environmentID: "acme"), false), (Self.manager, true)]
        for (caller, managersIssue) in makers {
            let plan = try BadgeRules.issue(
                Self.badge(), person: Self.worker, personTeams: ["north"], callerTeams: ["north"], managersIssue: managersIssue,
                by: caller)
            guard case .saveBadge(let saved) = plan.writes.first else {
                Issue.record("\(plan.writes)")
                continue
            }
            #expect(saved.pinTemporary && saved.pinIssuedBy == caller.actor)
        }
    }

    @Test func aTemporaryPinOfUnknownMakingIsStillMarked() {
        let decided = Self.signIn(Self.attempt(matched: true, newPin: "new"), badge: Self.badge(temporary: true))
        guard case .signedIn(let shift) = decided.outcome else {
            Issue.record("\(decided.outcome)")
            return
        }
        #expect(shift.amr == ["pin", "badge", "temporary_pin"] && shift.pinIssuedBy == "unknown")
    }
}
