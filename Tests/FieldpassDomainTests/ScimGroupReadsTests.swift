import Foundation
import Testing
@testable import FieldpassDomain

@Suite("SCIM groups: the facts each change asks a store for, by the group's kind")
struct ScimGroupReadsTests {
    static let now = Date()

    static func group(team: String? = nil, name: String, externalID: String? = nil, members: [String]) -> ScimGroupRecord {
        ScimGroupRecord(id: "g1", teamID: team, displayName: name, externalID: externalID, members: members, createdAt: now, updatedAt: now)
    }

    @Test func aRoleGroupsMemberChangeReadsWhoJoinsAndLeavesWithTheirOtherRoleGroupsAndNoTeam() {
        let group = Self.group(name: "Leads", members: ["u2", "u3"])
        let reads = ScimGroupPlans.reads(group, as: ScimGroupResource(displayName: "Leads", externalID: nil, members: ["u3", "u1"]))
        #expect(
            reads
                == ScimGroupReads(
                    people: ["u1", "u2"], everyMember: false, otherRoleGroupKeys: true, team: nil, holderOfName: nil, joining: ["u1"]))
    }

    @Test func aRoleGroupsRenameLocksEveryMemberAndReadsNoNameHolder() {
        let group = Self.group(name: "Leads", members: ["u1"])
        let renamed = ScimGroupPlans.reads(group, as: ScimGroupResource(displayName: "Chiefs", externalID: nil, members: ["u1"]))
        #expect(
            renamed
                == ScimGroupReads(people: [], everyMember: true, otherRoleGroupKeys: true, team: nil, holderOfName: nil, joining: []))
        let newExternalID = ScimGroupPlans.reads(group, as: ScimGroupResource(displayName: "Leads", externalID: "oid", members: ["u1"]))
        #expect(newExternalID.everyMember, "the external id names the role group too")
    }

    @Test func aTeamGroupsMemberChangeReadsItsTeamAndNoRoleGroups() {
        let group = Self.group(team: "t1", name: "North", members: ["u1"])
        let reads = ScimGroupPlans.reads(group, as: ScimGroupResource(displayName: "North", externalID: nil, members: ["u2"]))
        #expect(
            reads
                == ScimGroupReads(
                    people: ["u1", "u2"], everyMember: false, otherRoleGroupKeys: false, team: "t1", holderOfName: nil, joining: ["u2"]))
    }

    @Test func aTeamGroupsRenameReadsTheHolderOfTheNewNameButLocksNoMember() {
        let group = Self.group(team: "t1", name: "North", members: ["u1"])
        let renamed = ScimGroupPlans.reads(group, as: ScimGroupResource(displayName: "South", externalID: nil, members: ["u1"]))
        #expect(
            renamed
                == ScimGroupReads(people: [], everyMember: false, otherRoleGroupKeys: false, team: "t1", holderOfName: "South", joining: [])
        )
        let newExternalID = ScimGroupPlans.reads(group, as: ScimGroupResource(displayName: "North", externalID: "oid", members: ["u1"]))
        #expect(newExternalID.holderOfName == nil, "the team keeps its name")
    }
}
