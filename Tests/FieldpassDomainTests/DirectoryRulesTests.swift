import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Changes to people, teams and grants: the writes each rule plans, without a database")
struct DirectoryRulesTests {
    static let user = UserRecord(
        id: "u1", environmentID: "acme", email: "a@acme.test", role: .worker, createdAt: Date(), idpIssuer: "https://idp.test",
        idpSubject: "sub", disabled: false
    )
    static let team = TeamRecord(id: "t1", name: "North", members: ["u1", "u2"], createdAt: Date())
    static let shift = ShiftRecord(id: "s1", sharedDeviceID: "van-12", userID: "u1", email: "a@acme.test", startedAt: Date())

    @Test func disablingEndsShiftsRevokesEveryLiveDeviceEndsConsoleSessionsAndNamesTheDevices() throws {
        let plan = try DirectoryRules.setDisabled(
            true, of: Self.user, provisionedByScim: false, devices: PersonDevices(live: ["d1", "d2"], openShifts: [Self.shift]),
            actor: "cli")
        var entry = AuditRecord(
            actor: "cli", action: "user.disable", target: "user:u1", before: ["disabled": "false"], after: ["disabled": "true"])
        entry.revokedDevices = ["d1", "d2"]
        #expect(
            plan.writes == [
                .setDisabled(userID: "u1", disabled: true), .endShift(Self.shift, reason: .userDisabled, actor: "cli"),
                .revokeDevice(id: "d1"), .revokeDevice(id: "d2"),
                .endConsoleSessions(userID: "u1"), .audit(entry),
            ])
        #expect(plan.affectedUsers == ["u1"])
    }

    @Test func enablingRevokesNothingAndAPersonAlreadySoIsLeftAlone() throws {
        var disabled = Self.user
        disabled.disabled = true
        let plan = try DirectoryRules.setDisabled(
            false, of: disabled, provisionedByScim: false, devices: PersonDevices(live: ["d1"]), actor: "admin:x")
        #expect(plan.writes.count == 2)
        #expect(plan.writes.first == .setDisabled(userID: "u1", disabled: false))
        #expect(
            try DirectoryRules.setDisabled(
                false, of: Self.user, provisionedByScim: false, devices: PersonDevices(live: ["d1"]), actor: "cli") == .unchanged)
        #expect(throws: DirectoryError.unknownUser) {
            try DirectoryRules.setDisabled(true, of: nil, provisionedByScim: false, devices: PersonDevices(live: []), actor: "cli")
        }
    }

    @Test func onlyTheIdPSetsAScimPersonActiveButAnyoneMayDisableThem() throws {
        var disabled = Self.user
        disabled.disabled = true
        for actor in ["cli", "admin:u9", "console:u9"] {
            #expect(throws: DirectoryError.activeManagedByScim) {
                try DirectoryRules.setDisabled(false, of: disabled, provisionedByScim: true, devices: PersonDevices(live: []), actor: actor)
            }
        }
        #expect(
            try DirectoryRules.setDisabled(
                false, of: disabled, provisionedByScim: true, devices: PersonDevices(live: []), actor: DirectoryCaller.scimActor
            )
            .writes.first == .setDisabled(userID: "u1", disabled: false))
        #expect(
            try DirectoryRules.setDisabled(true, of: Self.user, provisionedByScim: true, devices: PersonDevices(live: []), actor: "cli")
                .writes.first
                == .setDisabled(userID: "u1", disabled: true))
    }

    @Test func aRoleChangeIsWrittenOnlyWhenTheRoleDiffers() throws {
        #expect(
            try DirectoryRules.setRole(.manager, of: Self.user, actor: "cli").writes == [
                .setRole(userID: "u1", role: .manager), .audit(.roleChanged(actor: "cli", userID: "u1", from: .worker, to: .manager)),
            ])
        #expect(try DirectoryRules.setRole(.worker, of: Self.user, actor: "cli") == .unchanged)
        #expect(throws: DirectoryError.unknownUser) { try DirectoryRules.setRole(.admin, of: nil, actor: "cli") }
    }

    @Test func revokingARevokedDeviceWritesNothingAndAnUnknownPersonComesFirst() throws {
        func revoke(
            _ device: (name: String, revoked: Bool)?, openShift: ShiftRecord? = nil, userKnown: Bool = true, byThemselves: Bool = false
        ) throws -> DirectoryPlan {
            try DirectoryRules.revokeDevice(
                id: "d1", device, openShift: openShift, userKnown: userKnown, userID: "u1", byThemselves: byThemselves, actor: "cli")
        }
        #expect(
            try revoke((name: "Phone", revoked: false)).writes == [
                .revokeDevice(id: "d1"), .audit(.deviceRevoked(actor: "cli", userID: "u1", deviceID: "d1", name: "Phone")),
            ])
        #expect(
            try revoke((name: "Phone", revoked: false), openShift: Self.shift).writes.first
                == .endShift(Self.shift, reason: .endedByAdmin, actor: "cli"),
            "revoking a shift's device ends the shift")
        #expect(
            try revoke((name: "Phone", revoked: false), openShift: Self.shift, byThemselves: true).writes.first
                == .endShift(Self.shift, reason: .signedOut, actor: "cli"),
            "a worker revoking a shift's device signs out of the shift")
        #expect(try revoke((name: "Phone", revoked: true)) == .unchanged)
        #expect(throws: DirectoryError.unknownDevice) { try revoke(nil) }
        #expect(throws: DirectoryError.unknownUser) { try revoke(nil, userKnown: false) }
    }

    @Test func anIdentityResetUnbindsRevokesAndEndsSignInsOnlyForABoundPerson() throws {
        let plan = try DirectoryRules.resetIdentity(
            of: Self.user, devices: PersonDevices(live: ["d1"], openShifts: [Self.shift]), actor: "cli")
        #expect(
            plan.writes == [
                .clearIdentity(userID: "u1"), .endShift(Self.shift, reason: .endedByAdmin, actor: "cli"), .revokeDevice(id: "d1"),
                .expireSignIns(userID: "u1"),
                .audit(.identityReset(actor: "cli", userID: "u1", issuer: "https://idp.test", subject: "sub", revoked: ["d1"])),
            ])
        var unbound = Self.user
        unbound.idpSubject = nil
        #expect(try DirectoryRules.resetIdentity(of: unbound, devices: PersonDevices(live: ["d1"]), actor: "cli") == .unchanged)
    }

    @Test func aTeamNameHeldInAnyCaseIsTakenButRenamingToTheOwnNameChangesNothing() throws {
        #expect(throws: DirectoryError.teamNameTaken) { try TeamRules.create(id: "t2", name: "north", holderOfName: "t1", actor: "cli") }
        #expect(
            try TeamRules.create(id: "t2", name: "South", holderOfName: nil, actor: "cli").writes.first
                == .createTeam(id: "t2", name: "South"))
        #expect(try TeamRules.rename(Self.team, to: "North", holderOfName: "t1", actor: "cli") == .unchanged)
        #expect(throws: DirectoryError.teamNameTaken) { try TeamRules.rename(Self.team, to: "NORTH", holderOfName: "t1", actor: "cli") }
        let rename = try TeamRules.rename(Self.team, to: "South", holderOfName: nil, actor: "cli")
        #expect(rename.writes.first == .renameTeam(Self.team, to: "South"))
        // Each member's reach carries the team's name.
        #expect(rename.affectedUsers == ["u1", "u2"])
        #expect(throws: DirectoryError.unknownTeam) { try TeamRules.rename(nil, to: "South", holderOfName: nil, actor: "cli") }
    }

    @Test func deletingATeamAuditsItsMembersAndChangesTheirReach() throws {
        let plan = try TeamRules.delete(Self.team, actor: "cli")
        #expect(plan.writes == [.deleteTeam(Self.team), .audit(.teamDeleted(actor: "cli", team: Self.team))])
        #expect(plan.affectedUsers == ["u1", "u2"])
        #expect(throws: DirectoryError.unknownTeam) { try TeamRules.delete(nil, actor: "cli") }
    }

    @Test func aMembershipChangeThatChangesNothingWritesNothingAndAnUnknownTeamComesFirst() throws {
        #expect(try TeamRules.changeMembership(of: "u1", userKnown: true, in: Self.team, member: true, actor: "cli") == .unchanged)
        #expect(try TeamRules.changeMembership(of: "u3", userKnown: true, in: Self.team, member: false, actor: "cli") == .unchanged)
        let add = try TeamRules.changeMembership(of: "u3", userKnown: true, in: Self.team, member: true, actor: "cli")
        #expect(add.writes.first == .addMember(teamID: "t1", userID: "u3"))
        #expect(add.affectedUsers == ["u3"])
        let remove = try TeamRules.changeMembership(of: "u2", userKnown: true, in: Self.team, member: false, actor: "cli")
        #expect(remove.writes.first == .removeMember(teamID: "t1", userID: "u2"))
        #expect(throws: DirectoryError.unknownTeam) {
            try TeamRules.changeMembership(of: "u3", userKnown: false, in: nil, member: true, actor: "cli")
        }
        #expect(throws: DirectoryError.unknownUser) {
            try TeamRules.changeMembership(of: "u3", userKnown: false, in: Self.team, member: true, actor: "cli")
        }
    }

    @Test(arguments: [
        ("users/u9", RealmAccess.read, GrantRules.Owner?.some(.user(id: "u9"))),
        ("users/u9/photos", .write, .user(id: "u9")),
        ("teams/t9", .read, .team(id: "t9")),
        ("users/*", .read, nil),
        ("shared/docs", .manage, nil),
        ("users", .read, nil),
    ])
    func aGrantNamesItsOwnerUnlessItIsAPattern(path: String, access: RealmAccess, owner: GrantRules.Owner?) {
        #expect(GrantRules.ownerToCheck(of: path, granting: access) == owner)
        #expect(GrantRules.ownerToCheck(of: path, granting: nil) == nil)
    }

    @Test func aGrantOfAnotherEnvironmentsRealmIsRefusedAndSettingWhatIsSetWritesNothing() throws {
        let facts = AccessFacts(user: Self.user, teams: [], grants: ["teams/t1": .read])
        #expect(throws: DirectoryError.unknownRealm) {
            try GrantRules.change(.read, realmPath: "users/other", facts: facts, ownerKnown: false, actor: "cli")
        }
        #expect(throws: DirectoryError.unknownUser) {
            try GrantRules.change(.read, realmPath: "users/other", facts: nil, ownerKnown: false, actor: "cli")
        }
        #expect(try GrantRules.change(.read, realmPath: "teams/t1", facts: facts, ownerKnown: true, actor: "cli") == .unchanged)
        // Removing needs no owner check: a realm that is gone can still be taken away.
        #expect(
            try GrantRules.change(nil, realmPath: "teams/t1", facts: facts, ownerKnown: false, actor: "cli").writes == [
                .removeGrant(userID: "u1", realmPath: "teams/t1"),
                .audit(.grant(actor: "cli", userID: "u1", realmPath: "teams/t1", from: .read, to: nil)),
            ])
        #expect(
            try GrantRules.change(.write, realmPath: "users/*", facts: facts, ownerKnown: false, actor: "cli").writes.first
                == .setGrant(userID: "u1", realmPath: "users/*", access: .write))
    }

    @Test func managersReadTheDirectoryAndOnlyAdminsAdministerIt() {
        #expect(Role.allCases.filter { $0.may(.read) } == [.admin, .manager])
        #expect(Role.allCases.filter { $0.may(.administer) } == [.admin])
    }

    @Test func aNewPersonIsAWorkerWithTheirRealmAndTheirCreationIsAudited() {
        let person = DirectoryRules.newPerson(email: "a@acme.test", actor: "scim", id: "u9")
        #expect(person.role == .worker && person.realmPath == RealmPath.personal(userID: "u9"))
        #expect(person.audit == .userCreated(actor: "scim", userID: "u9", email: "a@acme.test"))
        #expect(
            DirectoryRules.newPerson(email: "b@acme.test", actor: "device").id
                != DirectoryRules.newPerson(email: "b@acme.test", actor: "device").id)
    }

    @Test func peopleAreFoundByTheirEmailLowerCased() {
        #expect(DirectoryRules.emailKey("Ada.Lovelace@ACME.test") == "ada.lovelace@acme.test")
    }

    @Test func aRoleNoVersionWritesReadsAsAWorkers() {
        #expect(Role(stored: "manager") == .manager)
        #expect(Role(stored: "superuser") == .worker)
        #expect(Role(stored: "") == .worker)
    }
}
