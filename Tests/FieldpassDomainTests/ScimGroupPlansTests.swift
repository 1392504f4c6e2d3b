import Foundation
import Testing
@testable import FieldpassDomain

@Suite("SCIM groups: the writes each change plans, without a database")
struct ScimGroupPlansTests {
    static let now = Date()
    static let roles = RoleClaimMapping(claim: "roles", map: ["Chiefs": .admin, "Leads": .manager], defaultRole: nil, sync: .everySignIn)

    static func person(_ id: String, _ role: Role = .worker) -> UserRecord {
        UserRecord(id: id, environmentID: "acme", email: "\(id)@acme.test", role: role, createdAt: now, disabled: false)
    }

    static func group(_ id: String = "g1", team: String? = nil, name: String, members: [String]) -> ScimGroupRecord {
        ScimGroupRecord(id: id, teamID: team, displayName: name, externalID: nil, members: members, createdAt: now, updatedAt: now)
    }

    /// Everyone in `people` is listed by SCIM unless `unlisted` names them.
    static func facts(
        team: TeamRecord? = nil, holder: String? = nil, people: [UserRecord], keys: [String: [String]] = [:], unlisted: Set<String> = []
    ) -> ScimGroupFacts {
        ScimGroupFacts(
            team: team, holderOfName: holder, people: Dictionary(uniqueKeysWithValues: people.map { ($0.id, $0) }),
            otherRoleGroupKeys: keys,
            listed: Set(people.map(\.id)).subtracting(unlisted)
        )
    }

    @Test func joiningARoleGroupGivesItsRoleAndLeavingFallsBackToTheOtherGroups() throws {
        let group = Self.group(name: "Leads", members: ["u2"])
        let resource = ScimGroupResource(displayName: "Leads", externalID: nil, members: ["u1"])
        #expect(ScimGroupPlans.peopleToRead(group, as: resource) == ["u1", "u2"])
        let facts = Self.facts(people: [Self.person("u1"), Self.person("u2", .manager)], keys: ["u2": ["Chiefs"]])
        let plan = try ScimGroupPlans.save(group, as: resource, facts: facts, roles: Self.roles, actor: "scim")
        #expect(
            plan.writes == [
                .addRoleGroupMember(groupID: "g1", userID: "u1"),
                .audit(.roleGroupMembership(actor: "scim", groupID: "g1", userID: "u1", member: true)),
                .removeRoleGroupMember(groupID: "g1", userID: "u2"),
                .audit(.roleGroupMembership(actor: "scim", groupID: "g1", userID: "u2", member: false)),
                .setRole(userID: "u1", role: .manager), .audit(.roleChanged(actor: "scim", userID: "u1", from: .worker, to: .manager)),
                .setRole(userID: "u2", role: .admin), .audit(.roleChanged(actor: "scim", userID: "u2", from: .manager, to: .admin)),
            ])
    }

    @Test func aRoleGroupRenamedToANameThatMapsToNothingKeepsRolesAndAnUnknownMemberFailsTheWhole() throws {
        let group = Self.group(name: "Leads", members: ["u1"])
        let renamed = ScimGroupResource(displayName: "Others", externalID: nil, members: ["u1"])
        let plan = try ScimGroupPlans.save(
            group, as: renamed, facts: Self.facts(people: [Self.person("u1", .manager)]), roles: Self.roles, actor: "scim")
        #expect(
            plan.writes == [
                .updateScimGroup(id: "g1", displayName: "Others", externalID: nil),
                .recomputeRoles(try #require(RoleRecompute(groupID: "g1", mapping: Self.roles, actor: "scim"))),
            ])
        let stranger = ScimGroupResource(displayName: "Leads", externalID: nil, members: ["u1", "x"])
        #expect(throws: ScimError.invalidValue("Member x is not a user of this environment.")) {
            try ScimGroupPlans.save(group, as: stranger, facts: Self.facts(people: [Self.person("u1")]), roles: Self.roles, actor: "scim")
        }
    }

    /// After a rename, who leaves is reviewed one by one (the group no longer counts for them);
    /// everyone in the group, who joins included, gets their role at once as the store applies it.
    @Test func aRenamedRoleGroupReviewsWhoLeavesOneByOneAndEveryoneInItAtOnce() throws {
        let group = Self.group(name: "Leads", members: ["u1", "u2"])
        let resource = ScimGroupResource(displayName: "Chiefs", externalID: nil, members: ["u1", "u3"])
        #expect(ScimGroupPlans.peopleToRead(group, as: resource) == ["u2", "u3"], "not u1, whom the recompute decides")
        // u2 is in another role group whose external id is "Leads".
        let facts = Self.facts(people: [Self.person("u2", .admin), Self.person("u3")], keys: ["u2": ["Leads"]])
        let plan = try ScimGroupPlans.save(group, as: resource, facts: facts, roles: Self.roles, actor: "scim")
        #expect(
            plan.writes == [
                .updateScimGroup(id: "g1", displayName: "Chiefs", externalID: nil),
                .removeRoleGroupMember(groupID: "g1", userID: "u2"),
                .audit(.roleGroupMembership(actor: "scim", groupID: "g1", userID: "u2", member: false)),
                .addRoleGroupMember(groupID: "g1", userID: "u3"),
                .audit(.roleGroupMembership(actor: "scim", groupID: "g1", userID: "u3", member: true)),
                .setRole(userID: "u2", role: .manager), .audit(.roleChanged(actor: "scim", userID: "u2", from: .admin, to: .manager)),
                .recomputeRoles(try #require(RoleRecompute(groupID: "g1", mapping: Self.roles, actor: "scim"))),
            ])
    }

    @Test func aTeamGroupRenamesItsTeamAndChangesItsMembersAsAdminsWould() throws {
        let team = TeamRecord(id: "t1", name: "North", members: ["u1"], createdAt: Self.now)
        let group = Self.group("t1", team: "t1", name: "North", members: ["u1"])
        let resource = ScimGroupResource(displayName: "Northeast", externalID: nil, members: ["u2"])
        let facts = Self.facts(team: team, people: [Self.person("u1"), Self.person("u2")])
        let plan = try ScimGroupPlans.save(group, as: resource, facts: facts, roles: Self.roles, actor: "scim")
        #expect(
            plan.writes == [
                .renameTeam(team, to: "Northeast"), .audit(.teamRenamed(actor: "scim", teamID: "t1", from: "North", to: "Northeast")),
                .updateScimGroup(id: "t1", displayName: "Northeast", externalID: nil),
                .removeMember(teamID: "t1", userID: "u1"),
                .audit(.teamMembership(actor: "scim", teamID: "t1", userID: "u1", member: false)),
                .addMember(teamID: "t1", userID: "u2"), .audit(.teamMembership(actor: "scim", teamID: "t1", userID: "u2", member: true)),
            ])
        var taken = facts
        taken.holderOfName = "t2"
        #expect(throws: DirectoryError.teamNameTaken) {
            try ScimGroupPlans.save(group, as: resource, facts: taken, roles: Self.roles, actor: "scim")
        }
    }

    /// Whether a person is on the team is the team's say: one SCIM removed is on it still
    /// (the group leaves them out), and taking them back writes no second membership.
    @Test func aTeamGroupAsksTheTeamWhoIsOnIt() throws {
        let team = TeamRecord(id: "t1", name: "North", members: ["u1", "u9"], createdAt: Self.now)
        let group = Self.group("t1", team: "t1", name: "North", members: ["u1"])
        let resource = ScimGroupResource(displayName: "North", externalID: nil, members: ["u1", "u9"])
        let facts = Self.facts(team: team, people: [Self.person("u9")])
        #expect(try ScimGroupPlans.save(group, as: resource, facts: facts, roles: Self.roles, actor: "scim") == .unchanged)
    }

    @Test func aNewTeamGroupTakesOverTheTeamOfItsNameOrMakesOneAndATakenNameIsRefused() throws {
        let team = TeamRecord(id: "t1", name: "North", members: [], createdAt: Self.now)
        let takeover = try ScimGroupPlans.create(
            id: "g9", kind: .team, displayName: "north", externalID: "oid", nameTaken: false, team: team, actor: "scim")
        #expect(takeover.writes == [.createScimGroup(id: "t1", teamID: "t1", displayName: "North", externalID: "oid")])
        let fresh = try ScimGroupPlans.create(
            id: "g9", kind: .team, displayName: "South", externalID: nil, nameTaken: false, team: nil, actor: "scim")
        #expect(
            fresh.writes == [
                .createTeam(id: "g9", name: "South"), .audit(.teamCreated(actor: "scim", teamID: "g9", name: "South")),
                .createScimGroup(id: "g9", teamID: "g9", displayName: "South", externalID: nil),
            ])
        #expect(throws: ScimError.self) {
            try ScimGroupPlans.create(
                id: "g9", kind: .roleGroup, displayName: "Leads", externalID: nil, nameTaken: true, team: nil, actor: "scim")
        }
    }

    @Test func deletingARoleGroupLetsItsMembersLeaveFirst() throws {
        let group = Self.group(name: "Leads", members: ["u1"])
        let facts = Self.facts(people: [Self.person("u1", .manager)])
        var roles = Self.roles
        roles.defaultRole = .worker
        let plan = try ScimGroupPlans.deleteRoleGroup(group, facts: facts, roles: roles, actor: "scim")
        #expect(
            plan.writes == [
                .removeRoleGroupMember(groupID: "g1", userID: "u1"),
                .audit(.roleGroupMembership(actor: "scim", groupID: "g1", userID: "u1", member: false)),
                .setRole(userID: "u1", role: .worker), .audit(.roleChanged(actor: "scim", userID: "u1", from: .manager, to: .worker)),
                .deleteScimGroup(id: "g1"), .audit(.roleGroupDeleted(actor: "scim", groupID: "g1", name: "Leads")),
            ])
    }

    @Test func aMemberNamedTwiceJoinsOnce() {
        #expect(ScimGroupRules.membershipChanges(current: [], wanted: ["b", "a", "b"]).added == ["a", "b"])
    }

    /// Whoever joins must be someone SCIM lists, as the change's transaction read them: a
    /// person SCIM removed is refused, whatever else the change does; who stays or leaves is
    /// not asked about.
    @Test func onlyPeopleScimListsJoinAndTheRefusalNamesThem() throws {
        let group = Self.group(team: "g1", name: "North", members: ["u1", "u2"])
        let team = TeamRecord(id: "g1", name: "North", members: ["u1", "u2"], createdAt: Self.now)
        let resource = ScimGroupResource(displayName: "South", externalID: nil, members: ["u1", "u3", "u4"])
        #expect(ScimGroupPlans.joining(group, as: resource) == ["u3", "u4"])
        let people = ["u1", "u2", "u3", "u4"].map { Self.person($0) }
        #expect(throws: ScimError.invalidValue("Member u4 is not a user of this environment.")) {
            try ScimGroupPlans.save(
                group, as: resource, facts: Self.facts(team: team, people: people, unlisted: ["u2", "u4"]), roles: nil, actor: "scim")
        }
        let plan = try ScimGroupPlans.save(
            group, as: resource, facts: Self.facts(team: team, people: people, unlisted: ["u2"]), roles: nil, actor: "scim")
        #expect(
            plan.writes.contains(.addMember(teamID: "g1", userID: "u3")) && plan.writes.contains(.removeMember(teamID: "g1", userID: "u2")))
    }

    /// A group stays what it was created as: its name (or external id) may not turn a team
    /// into a role group or back.
    @Test func aGroupKeepsItsKind() throws {
        let mappings = ClaimMappings(roles: Self.roles)
        let team = Self.group(team: "g1", name: "North", members: [])
        let roleGroup = Self.group(name: "Leads", members: [])
        try ScimGroupRules.checkKind(
            of: team, as: ScimGroupResource(displayName: "South", externalID: nil, members: []), mappings: mappings)
        try ScimGroupRules.checkKind(
            of: roleGroup, as: ScimGroupResource(displayName: "Chiefs", externalID: nil, members: []), mappings: mappings)
        #expect(throws: ScimError.self) {
            try ScimGroupRules.checkKind(
                of: team, as: ScimGroupResource(displayName: "Leads", externalID: nil, members: []), mappings: mappings)
        }
        #expect(throws: ScimError.self) {
            try ScimGroupRules.checkKind(
                of: roleGroup, as: ScimGroupResource(displayName: "Others", externalID: nil, members: []), mappings: mappings)
        }
    }
}
