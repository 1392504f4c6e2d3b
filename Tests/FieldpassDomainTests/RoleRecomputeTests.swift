import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Role groups: one rule for one member and for every member at once")
struct RoleRecomputeTests {
    static let mapping = RoleClaimMapping(
        claim: "roles", map: ["Chiefs": .admin, "oid-chiefs": .admin, "Leads": .manager, "Crew": .worker], defaultRole: .worker,
        sync: .everySignIn)

    /// The tiers a store evaluates set-wise give what `roles_from_idp` says: the highest role any
    /// key maps to, else the default, for every combination of keys.
    @Test func theTiersGiveTheHighestRoleAnyKeyMapsToElseTheDefault() {
        #expect(Self.mapping.tiers.map(\.role) == [.admin, .manager, .worker])
        #expect(Self.mapping.tiers.first?.values == ["Chiefs", "oid-chiefs"])
        let keys = ["Chiefs", "oid-chiefs", "Leads", "Crew", "North", "chiefs"]
        for subset in 0..<(1 << keys.count) {
            let chosen = keys.indices.filter { subset & (1 << $0) != 0 }.map { keys[$0] }
            let highest = chosen.compactMap { Self.mapping.map[$0] }.max { $0.rank < $1.rank } ?? Self.mapping.defaultRole
            #expect(Self.mapping.role(for: chosen) == highest, "\(chosen)")
        }
    }

    @Test func aRecomputeListsEveryChangeItCanMakeWithItsEntry() throws {
        let recompute = try #require(RoleRecompute(groupID: "g1", mapping: Self.mapping, actor: "scim"))
        #expect(recompute.tiers == Self.mapping.tiers && recompute.otherwise == .worker)
        #expect(recompute.changes.count == 6, "each of three roles from each of the two others")
        for change in recompute.changes {
            #expect(change.from != change.to)
            #expect(change.entry == .roleChanged(actor: "scim", userID: RoleRecompute.person, from: change.from, to: change.to))
        }
        var managersOnly = Self.mapping
        managersOnly.map = ["Leads": .manager]
        managersOnly.defaultRole = nil
        let fewer = try #require(RoleRecompute(groupID: "g1", mapping: managersOnly, actor: "scim"))
        #expect(fewer.otherwise == nil && Set(fewer.changes.map(\.to)) == [.manager])
        managersOnly.map = [:]
        #expect(RoleRecompute(groupID: "g1", mapping: managersOnly, actor: "scim") == nil, "nothing can change")
        #expect(RoleRecompute(groupID: "g1", mapping: nil, actor: "scim") == nil)
    }

    /// The member named by the marker becomes the member in the entry and in its lifecycle
    /// event when a store writes their id in its place.
    @Test func theMarkerStandsWhereTheMembersIdDoes() throws {
        let entry = AuditRecord.roleChanged(actor: "scim", userID: RoleRecompute.person, from: .worker, to: .admin)
        let id = "0f8a2c1e-5b7d-4e3a-9c6b-1d2e3f4a5b6c"
        let named = AuditRecord.roleChanged(actor: "scim", userID: id, from: .worker, to: .admin)
        #expect(entry.target.replacingOccurrences(of: RoleRecompute.person, with: id) == named.target)
        let bodies = try LifecycleEventRules.events(for: entry).map(StableJSON.text)
        #expect(
            bodies.map { $0.replacingOccurrences(of: RoleRecompute.person, with: id) }
                == (try LifecycleEventRules.events(for: named).map(StableJSON.text)))
    }

    @Test func onlyARoleGroupsRenameRecomputesEveryMember() throws {
        let group = ScimGroupRecord(
            id: "g1", teamID: nil, displayName: "Leads", externalID: nil, members: ["u1"], createdAt: Date(), updatedAt: Date())
        let same = ScimGroupResource(displayName: "Leads", externalID: nil, members: ["u1", "u2"])
        #expect(!ScimGroupPlans.recomputesRoles(group, as: same))
        #expect(ScimGroupPlans.recomputesRoles(group, as: ScimGroupResource(displayName: "Leads", externalID: "oid", members: [])))
        var team = group
        team.teamID = "g1"
        #expect(!ScimGroupPlans.recomputesRoles(team, as: ScimGroupResource(displayName: "North", externalID: nil, members: [])))
    }
}
