import Foundation
import Testing
@testable import FieldpassDomain

/// Who looks after a shared device, and when its enrollment code works: decided with no store.
@Suite("Shared device rules")
struct SharedDeviceRulesTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    static func person(_ role: Role) -> DirectoryCaller {
        .admin(UserRecord(id: "u1", environmentID: "acme", email: "a@acme.test", role: role, createdAt: now, disabled: false))
    }

    static func device(team: String? = "north", expiresIn: TimeInterval = 900) -> SharedDeviceRecord {
        SharedDeviceRecord(
            id: "d1", environmentID: "acme", name: "Van 12", teamID: team, createdAt: now, enrollmentExpiresAt: now + expiresIn)
    }

    @Test func anAdminLooksAfterEveryDeviceAManagerThoseOfHisTeamsAWorkerNone() {
        for team in ["north", "south", nil] as [String?] {
            #expect(DirectoryAuthority.looksAfter(Self.device(team: team), callerTeams: ["north"], Self.person(.admin)))
            #expect(DirectoryAuthority.looksAfter(Self.device(team: team), callerTeams: [], .cli(environmentID: "acme")))
            #expect(
                DirectoryAuthority.looksAfter(Self.device(team: team), callerTeams: ["north"], Self.person(.manager)) == (team == "north"))
            #expect(!DirectoryAuthority.looksAfter(Self.device(team: team), callerTeams: ["north"], Self.person(.worker)))
        }
    }

    @Test func aManagerEnrollsForHisTeamAndNoOther() throws {
        let plan = try SharedDeviceRules.create(
            Self.device(), codeHash: "h", teamExists: true, namesakes: [], callerTeams: ["north"], by: Self.person(.manager))
        #expect(plan.writes.first == .createSharedDevice(Self.device(), codeHash: "h"))
        #expect(throws: DirectoryError.notAllowed(.administer)) {
            try SharedDeviceRules.create(
                Self.device(team: "south"), codeHash: "h", teamExists: true, namesakes: [], callerTeams: ["north"],
                by: Self.person(.manager))
        }
        #expect(throws: DirectoryError.unknownTeam) {
            try SharedDeviceRules.create(
                Self.device(), codeHash: "h", teamExists: false, namesakes: [], callerTeams: [], by: Self.person(.admin))
        }
    }

    @Test func aNameIsTakenByADeviceEnrolledOrWhoseCodeStillWorks() throws {
        var enrolled = Self.device()
        enrolled.enrolledAt = Self.now
        var unenrolled = enrolled
        unenrolled.unenrolledAt = Self.now
        let expired = Self.device(expiresIn: 0)
        for holder in [enrolled, Self.device(expiresIn: 1)] {
            #expect(SharedDeviceRules.holdsName(holder, at: Self.now))
            #expect(throws: DirectoryError.sharedDeviceNameTaken) {
                try SharedDeviceRules.create(
                    Self.device(), codeHash: "h", teamExists: true, namesakes: [expired, holder], callerTeams: [], by: Self.person(.admin))
            }
        }
        #expect(!SharedDeviceRules.holdsName(expired, at: Self.now) && !SharedDeviceRules.holdsName(unenrolled, at: Self.now))
        let plan = try SharedDeviceRules.create(
            Self.device(), codeHash: "h", teamExists: true, namesakes: [expired, unenrolled], callerTeams: [], by: Self.person(.admin))
        #expect(plan.writes.first == .createSharedDevice(Self.device(), codeHash: "h"))
        // Whether the name is free is nobody's business who may not enroll for the team.
        #expect(throws: DirectoryError.notAllowed(.administer)) {
            try SharedDeviceRules.create(
                Self.device(team: "south"), codeHash: "h", teamExists: true, namesakes: [enrolled], callerTeams: ["north"],
                by: Self.person(.manager))
        }
    }

    @Test func aCodeWorksOnceBeforeItExpiresAndForAKeyNoDeviceHas() throws {
        let (enrolled, plan) = try SharedDeviceRules.enroll(Self.device(), keyThumbprint: "k", keyInUse: false, now: Self.now)
        #expect(enrolled.state == .enrolled && enrolled.keyThumbprint == "k" && enrolled.enrolledAt == Self.now)
        #expect(plan.writes.first == .enrollSharedDevice(id: "d1", keyThumbprint: "k"))
        var unenrolled = Self.device()
        unenrolled.unenrolledAt = Self.now
        let refused: [(SharedDeviceRecord?, Bool)] = [
            (nil, false), (enrolled, false), (unenrolled, false), (Self.device(expiresIn: 0), false), (Self.device(), true),
        ]
        for (device, keyInUse) in refused {
            #expect(throws: EnrollmentRefused()) {
                try SharedDeviceRules.enroll(device, keyThumbprint: "k", keyInUse: keyInUse, now: Self.now)
            }
        }
    }

    @Test func onlyAnEnrolledDeviceActs() throws {
        let (enrolled, _) = try SharedDeviceRules.enroll(Self.device(), keyThumbprint: "k", keyInUse: false, now: Self.now)
        #expect(SharedDeviceRules.acting(enrolled) == enrolled)
        var unenrolled = enrolled
        unenrolled.unenrolledAt = Self.now
        for device in [nil, Self.device(), unenrolled] as [SharedDeviceRecord?] {
            #expect(SharedDeviceRules.acting(device) == nil, "\(String(describing: device?.state))")
        }
    }

    @Test func unenrollingTwiceChangesNothingTheSecondTime() throws {
        var device = Self.device()
        #expect(try SharedDeviceRules.unenroll(device, open: nil, callerTeams: [], by: Self.person(.admin)).writes.count == 2)
        device.unenrolledAt = Self.now
        #expect(try SharedDeviceRules.unenroll(device, open: nil, callerTeams: [], by: Self.person(.admin)).writes.isEmpty)
        #expect(throws: DirectoryError.unknownDevice) {
            try SharedDeviceRules.unenroll(Self.device(team: "south"), open: nil, callerTeams: ["north"], by: Self.person(.manager))
        }
    }
}
