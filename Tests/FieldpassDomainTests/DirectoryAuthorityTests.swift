import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Who may change the directory, decided on the facts a change's transaction read, without a database")
struct DirectoryAuthorityTests {
    static let admin = UserRecord(
        id: "boss", environmentID: "acme", email: "boss@acme.test", role: .admin, createdAt: Date(), idpIssuer: nil, idpSubject: nil,
        disabled: false)
    static let team = TeamRecord(id: "t1", name: "North", members: [], createdAt: Date())
    static let teamsFromIdP = ClaimMappings(
        teams: TeamClaimMapping(claim: "groups", map: ["north": "North"], prefix: nil, sync: .everySignIn))

    @Test func aPersonIsJudgedByTheirRecordAsTheTransactionReadIt() throws {
        var demoted = Self.admin
        demoted.role = .manager
        var disabled = Self.admin
        disabled.disabled = true
        let caller = DirectoryCaller.admin(Self.admin)
        #expect(try DirectoryAuthority.authorize(caller, current: Self.admin, .administer) == caller)
        #expect(throws: DirectoryError.notAllowed(.administer)) { try DirectoryAuthority.authorize(caller, current: demoted, .administer) }
        #expect(try DirectoryAuthority.authorize(caller, current: demoted, .read) == .admin(demoted))
        #expect(throws: DirectoryError.notAllowed(.read)) { try DirectoryAuthority.authorize(caller, current: disabled, .read) }
        #expect(throws: DirectoryError.notAllowed(.read)) { try DirectoryAuthority.authorize(.console(Self.admin), current: nil, .read) }
    }

    @Test(arguments: [DirectoryCaller.cli(environmentID: "acme"), .scim(environmentID: "acme"), .idp(environmentID: "acme")])
    func theMachineAndTheIdPNeedNoRecord(caller: DirectoryCaller) throws {
        #expect(try DirectoryAuthority.authorize(caller, current: nil, .administer) == caller)
    }

    @Test func aServiceAccountChangesNobody() {
        #expect(throws: DirectoryError.notAllowed(.administer)) {
            try DirectoryAuthority.authorize(.service(accountID: "backend", environmentID: "acme"), current: nil, .administer)
        }
    }

    @Test func aScimGroupsTeamIsTheIdPsAlone() throws {
        #expect(throws: DirectoryError.teamManagedByScim) {
            try DirectoryAuthority.checkTeamChange(by: .admin(Self.admin), scimManaged: true)
        }
        try DirectoryAuthority.checkTeamChange(by: .scim(environmentID: "acme"), scimManaged: true)
        try DirectoryAuthority.checkTeamChange(by: .cli(environmentID: "acme"), scimManaged: false)
    }

    @Test func aMembershipTheClaimsSetIsTheIdPs() throws {
        #expect(throws: DirectoryError.membershipManagedByIdP) {
            try DirectoryAuthority.checkMembershipChange(
                by: .cli(environmentID: "acme"), of: Self.team, scimManaged: false, managed: Self.teamsFromIdP)
        }
        #expect(throws: DirectoryError.teamManagedByScim) {
            try DirectoryAuthority.checkMembershipChange(by: .cli(environmentID: "acme"), of: Self.team, scimManaged: true, managed: .none)
        }
        try DirectoryAuthority.checkMembershipChange(
            by: .idp(environmentID: "acme"), of: Self.team, scimManaged: true, managed: Self.teamsFromIdP)
        try DirectoryAuthority.checkMembershipChange(by: .cli(environmentID: "acme"), of: Self.team, scimManaged: false, managed: .none)
    }

    @Test func rolesTheClaimsSetAreTheIdPs() throws {
        let rolesFromIdP = ClaimMappings(roles: RoleClaimMapping(claim: "role", map: [:], defaultRole: nil, sync: .everySignIn))
        #expect(throws: DirectoryError.roleManagedByIdP) {
            try DirectoryAuthority.checkRoleChange(by: .admin(Self.admin), managed: rolesFromIdP)
        }
        try DirectoryAuthority.checkRoleChange(by: .scim(environmentID: "acme"), managed: rolesFromIdP)
        try DirectoryAuthority.checkRoleChange(by: .admin(Self.admin), managed: .none)
    }

    @Test func nobodyDisablesThemselvesButMayEnableThemselvesAndDisableOthers() throws {
        #expect(throws: DirectoryError.cannotDisableSelf) {
            try DirectoryAuthority.checkDisable(true, of: Self.admin, by: .admin(Self.admin))
        }
        try DirectoryAuthority.checkDisable(false, of: Self.admin, by: .admin(Self.admin))
        var other = Self.admin
        other.id = "other"
        try DirectoryAuthority.checkDisable(true, of: other, by: .console(Self.admin))
    }
}
