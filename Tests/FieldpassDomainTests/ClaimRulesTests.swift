import Testing
@testable import FieldpassDomain

@Suite("Claim rules: roles and teams from the IdP's claims, without an IdP")
struct ClaimRulesTests {
    static let roles = RoleClaimMapping(
        claim: "roles", map: ["Fieldpass.Admin": .admin, "Fieldpass.Manager": .manager, "Fieldpass.Worker": .worker],
        defaultRole: .worker, sync: .everySignIn
    )
    static let teams = TeamClaimMapping(claim: "groups", map: ["6f1c-0001": "North"], prefix: "crew-", sync: .everySignIn)
    static let both = ClaimMappings(roles: roles, teams: teams)

    static func mapped(_ claims: [String: ClaimValue], with mappings: ClaimMappings = both) -> MappedClaims {
        ClaimRules.mapped(mappings) { claims[$0] ?? .missing }
    }

    @Test func theHighestMappedRoleWins() {
        let claims = Self.mapped(["roles": .values(["Fieldpass.Worker", "Fieldpass.Admin", "Fieldpass.Manager", "Other"])])
        #expect(claims.role == MappedClaims.MappedRole(role: .admin, sync: .everySignIn))
        #expect(Self.mapped(["roles": .values(["Fieldpass.Manager", "Fieldpass.Worker"])]).role?.role == .manager)
    }

    @Test func aValueNoMapEntryNamesGivesTheDefault() {
        #expect(Self.mapped(["roles": .values(["Somebody.Else"])]).role?.role == .worker)
        #expect(Self.mapped(["roles": .values([])]).role?.role == .worker)
    }

    @Test func withoutADefaultAnUnmappedClaimKeepsTheRole() {
        var roles = Self.roles
        roles.defaultRole = nil
        let claims = Self.mapped(["roles": .values(["Somebody.Else"])], with: ClaimMappings(roles: roles))
        #expect(claims == MappedClaims.none, "nothing to change, and nothing to log: the claim was there")
    }

    @Test func teamsComeFromTheMapAndFromThePrefix() {
        let claims = Self.mapped(["groups": .values(["6f1c-0001", "crew-South", "crew-", "crew- East ", "staff", "crew-north"])])
        #expect(claims.teams?.names == ["North", "South", "East"], "crew- alone names no team; north is North again")
        #expect(claims.teams?.mapping == Self.teams)
        #expect(claims.skipped == [.init(mapping: .roles, reason: .missing)], "no roles claim was sent")
    }

    @Test func aSingleStringIsAListOfOne() {
        #expect(Self.mapped(["roles": .values(["Fieldpass.Manager"]), "groups": .values(["crew-North"])]).teams?.names == ["North"])
    }

    @Test(arguments: [ClaimValue.missing, .overage, .unusable])
    func aClaimThatCannotBeReadChangesNothingAndIsNamedForTheLog(value: ClaimValue) {
        let claims = Self.mapped(["roles": value, "groups": value])
        #expect(claims.role == nil, "not even the default applies")
        #expect(claims.teams == nil, "no team is left either")
        let reason: MappedClaims.Skipped.Reason = value == .overage ? .overage : value == .unusable ? .unusable : .missing
        #expect(claims.skipped == [.init(mapping: .roles, reason: reason), .init(mapping: .teams, reason: reason)])
    }

    @Test func moreTeamsThanTheCapChangeNoTeam() {
        let values = (0...TeamClaimMapping.maximumTeams).map { "crew-\($0)" }
        let claims = Self.mapped(["roles": .values(["Fieldpass.Manager"]), "groups": .values(values)])
        #expect(claims.teams == nil && claims.skipped == [.init(mapping: .teams, reason: .tooManyTeams)])
        #expect(claims.role?.role == .manager, "the roles claim still counts")
    }

    @Test func anEnvironmentWithoutMappingsReadsNoClaim() {
        let claims = ClaimRules.mapped(.none) { name in
            Issue.record("read \(name)")
            return .missing
        }
        #expect(claims == .none)
    }

    @Test func everySignInTakesRolesAndMappedTeamsOutOfTheAdminsHands() {
        #expect(throws: DirectoryError.roleManagedByIdP) { try Self.both.checkRoleChange() }
        let mapOnly = ClaimMappings(teams: TeamClaimMapping(claim: "groups", map: ["g1": "North"], prefix: nil, sync: .everySignIn))
        #expect(throws: DirectoryError.membershipManagedByIdP) { try mapOnly.checkMembershipChange(teamName: "north") }
        #expect(throws: Never.self) { try mapOnly.checkMembershipChange(teamName: "Office") }
        #expect(throws: DirectoryError.membershipManagedByIdP) { try Self.both.checkMembershipChange(teamName: "Office") }
    }

    @Test func firstSignInLeavesEverythingToTheAdminsAfterwards() throws {
        var roles = Self.roles
        var teams = Self.teams
        roles.sync = .firstSignIn
        teams.sync = .firstSignIn
        let mappings = ClaimMappings(roles: roles, teams: teams)
        try mappings.checkRoleChange()
        try mappings.checkMembershipChange(teamName: "North")
        try ClaimMappings.none.checkRoleChange()
    }
}
