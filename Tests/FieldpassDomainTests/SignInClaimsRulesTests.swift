import Testing
@testable import FieldpassDomain

@Suite("Sign-in rules for the IdP's roles and teams, without a database")
struct SignInClaimsRulesTests {
    typealias Team = SignInRules.Team

    static let teams = TeamClaimMapping(claim: "groups", map: ["g-north": "North"], prefix: nil, sync: .everySignIn)

    static func attempt(
        role: Role? = nil, teams names: [String]? = nil, sync: ClaimSync = .everySignIn, bootstrap: Bool = false
    ) -> SignInAttempt {
        var mapping = Self.teams
        mapping.sync = sync
        let claims = MappedClaims(
            role: role.map { MappedClaims.MappedRole(role: $0, sync: sync) },
            teams: names.map { MappedClaims.MappedTeams(names: $0, mapping: mapping) }
        )
        return SignInAttempt(userID: "u1", issuer: "https://idp.test", subject: "sub-1", promoteToAdmin: bootstrap, claims: claims)
    }

    static func user(role: Role = .worker, signedIn: Bool) -> SignInRules.User {
        SignInRules.User(
            id: "u1", role: role.rawValue, issuer: signedIn ? "https://idp.test" : nil, subject: signedIn ? "sub-1" : nil,
            disabled: false, signedInBefore: signedIn
        )
    }

    /// Ids for created teams, in order: new-1, new-2, …
    static func ids() -> () -> String {
        var count = 0
        return {
            count += 1
            return "new-\(count)"
        }
    }

    @Test func theClaimsRoleIsSetAndAuditedWithActorIdp() {
        let decision = SignInRules.decide(user: Self.user(signedIn: false), holder: nil, attempt: Self.attempt(role: .manager))
        #expect(decision.role == .manager)
        #expect(decision.audit == [.roleChanged(actor: "idp", userID: "u1", from: .worker, to: .manager)])
        let same = SignInRules.decide(user: Self.user(role: .manager, signedIn: true), holder: nil, attempt: Self.attempt(role: .manager))
        #expect(same == SignInRules.Decision(), "the same role again changes and audits nothing")
    }

    @Test func everySignInAppliesTheClaimAgainFirstSignInOnlyOnce() {
        let returning = Self.user(role: .manager, signedIn: true)
        let every = SignInRules.decide(user: returning, holder: nil, attempt: Self.attempt(role: .worker))
        #expect(every.role == .worker)
        let first = SignInRules.decide(user: returning, holder: nil, attempt: Self.attempt(role: .worker, sync: .firstSignIn))
        #expect(first.role == nil && first.audit.isEmpty)
        let newcomer = SignInRules.decide(
            user: Self.user(signedIn: false), holder: nil, attempt: Self.attempt(role: .admin, sync: .firstSignIn))
        #expect(newcomer.role == .admin)
        #expect(SignInRules.teamNamesToResolve(user: returning, attempt: Self.attempt(teams: ["North"], sync: .firstSignIn)) == nil)
        #expect(SignInRules.teamNamesToResolve(user: returning, attempt: Self.attempt(teams: ["North"])) == ["North"])
        #expect(
            SignInRules.teamNamesToResolve(user: returning, attempt: Self.attempt(role: .admin)) == nil, "no teams claim, no team reads")
    }

    @Test func theIdpsRoleWinsOverBootstrapAdminsAndBootstrapStillWorksWithoutOne() {
        let newcomer = Self.user(signedIn: false)
        let mapped = SignInRules.decide(user: newcomer, holder: nil, attempt: Self.attempt(role: .manager, bootstrap: true))
        #expect(mapped.role == .manager && mapped.audit.map(\.actor) == ["idp"])
        let unmapped = SignInRules.decide(user: newcomer, holder: nil, attempt: Self.attempt(bootstrap: true))
        #expect(unmapped.role == .admin && unmapped.audit.map(\.actor) == ["bootstrap"])
    }

    @Test func missingTeamsAreCreatedAndJoined() {
        let teams = SignInRules.Teams(current: [], named: ["North": Team(id: "t-north", name: "north")])
        let decision = SignInRules.decide(
            user: Self.user(signedIn: false), holder: nil, attempt: Self.attempt(teams: ["North", "South"]), teams: teams,
            newTeamID: Self.ids()
        )
        #expect(decision.createTeams == [Team(id: "new-1", name: "South")])
        #expect(decision.join == ["t-north", "new-1"])
        #expect(decision.leave.isEmpty)
        #expect(
            decision.audit == [
                .teamMembership(actor: "idp", teamID: "t-north", userID: "u1", member: true),
                .teamCreated(actor: "idp", teamID: "new-1", name: "South"),
                .teamMembership(actor: "idp", teamID: "new-1", userID: "u1", member: true),
            ])
    }

    @Test func theMappingsTeamsNoLongerClaimedAreLeftAndTheAdminsTeamsKept() {
        let current = [Team(id: "t-north", name: "North"), Team(id: "t-office", name: "Office")]
        let decision = SignInRules.decide(
            user: Self.user(signedIn: true), holder: nil, attempt: Self.attempt(teams: []),
            teams: SignInRules.Teams(current: current, named: [:]), newTeamID: Self.ids()
        )
        #expect(decision.leave == ["t-north"], "Office is no team the map names: the admins'")
        #expect(decision.audit == [.teamMembership(actor: "idp", teamID: "t-north", userID: "u1", member: false)])
        var prefixed = Self.attempt(teams: [])
        prefixed.claims.teams?.mapping.prefix = "crew-"
        let all = SignInRules.decide(
            user: Self.user(signedIn: true), holder: nil, attempt: prefixed,
            teams: SignInRules.Teams(current: current, named: [:]), newTeamID: Self.ids()
        )
        #expect(all.leave == ["t-north", "t-office"], "with a prefix, any team may come from the claim")
    }

    @Test func teamsAlreadyJoinedChangeNothing() {
        let north = Team(id: "t-north", name: "North")
        let decision = SignInRules.decide(
            user: Self.user(signedIn: true), holder: nil, attempt: Self.attempt(teams: ["North"]),
            teams: SignInRules.Teams(current: [north], named: ["North": north]), newTeamID: Self.ids()
        )
        #expect(decision == SignInRules.Decision())
    }

    @Test func aRefusedSignInChangesNoRoleAndNoTeam() {
        let disabled = SignInRules.User(id: "u1", role: "worker", disabled: true, signedInBefore: false)
        let decision = SignInRules.decide(
            user: disabled, holder: nil, attempt: Self.attempt(role: .admin, teams: ["South"]),
            teams: SignInRules.Teams(current: [], named: [:]), newTeamID: Self.ids()
        )
        #expect(decision == SignInRules.Decision(refusal: .userDisabled))
    }
}
