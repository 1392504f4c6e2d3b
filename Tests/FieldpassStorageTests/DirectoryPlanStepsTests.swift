import FieldpassDomain
import Testing
@testable import FieldpassStorage

/// How PostgreSQL folds a directory plan into statements: runs of membership changes and audit
/// entries become a statement per stretch of one change and one for the audits; nothing moves
/// past any other write.
@Suite("Directory plan steps")
struct DirectoryPlanStepsTests {
    private func joined(_ userID: String, _ member: Bool = true) -> AuditRecord {
        .teamMembership(actor: "scim", teamID: "t", userID: userID, member: member)
    }

    @Test func aRunOfJoinsIsOneStatementAndItsAuditsAnother() {
        let writes: [DirectoryWrite] = ["a", "b", "c"].flatMap { [.addMember(teamID: "t", userID: $0), .audit(joined($0))] }
        #expect(
            Array(DirectoryPlanSteps(writes)) == [
                .members(MembershipBatch(change: .joinTeam, groupID: "t", userIDs: ["a", "b", "c"])),
                .audits([joined("a"), joined("b"), joined("c")]),
            ])
    }

    @Test func joinsAndLeavesKeepTheirOrderAndAnotherWriteEndsTheRun() {
        let writes: [DirectoryWrite] = [
            .addMember(teamID: "t", userID: "a"), .audit(joined("a")),
            .removeMember(teamID: "t", userID: "b"), .audit(joined("b", false)),
            .addMember(teamID: "t", userID: "c"), .audit(joined("c")),
            .setRole(userID: "c", role: .manager),
            .addRoleGroupMember(groupID: "g", userID: "c"),
            .addRoleGroupMember(groupID: "h", userID: "d"),
        ]
        #expect(
            Array(DirectoryPlanSteps(writes)) == [
                .members(MembershipBatch(change: .joinTeam, groupID: "t", userIDs: ["a"])),
                .members(MembershipBatch(change: .leaveTeam, groupID: "t", userIDs: ["b"])),
                .members(MembershipBatch(change: .joinTeam, groupID: "t", userIDs: ["c"])),
                .audits([joined("a"), joined("b", false), joined("c")]),
                .one(.setRole(userID: "c", role: .manager)),
                .members(MembershipBatch(change: .joinRoleGroup, groupID: "g", userIDs: ["c"])),
                .members(MembershipBatch(change: .joinRoleGroup, groupID: "h", userIDs: ["d"])),
            ])
    }

    @Test func aWriteAloneIsAStepAlone() {
        let writes: [DirectoryWrite] = [
            .setRole(userID: "a", role: .manager), .audit(joined("a")), .setRole(userID: "b", role: .worker),
            .addMember(teamID: "t", userID: "b"),
        ]
        #expect(Array(DirectoryPlanSteps(writes)) == writes.map(DirectoryPlanSteps.Step.one))
    }
}
