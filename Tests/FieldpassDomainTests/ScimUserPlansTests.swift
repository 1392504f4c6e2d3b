import Foundation
import Testing
@testable import FieldpassDomain

@Suite("SCIM people: the writes provisioning, changes and removal plan, without a database")
struct ScimUserPlansTests {
    static let user = UserRecord(id: "u1", environmentID: "acme", email: "a@acme.test", role: .worker, createdAt: Date(), disabled: false)
    static let profile = ScimProfile(externalID: "oid-1", displayName: "Ada")

    @Test func aPersonSCIMListsIsAConflictAndOneItRemovedComesBackDisabledUntilActive() throws {
        #expect(throws: ScimError.self) {
            try ScimUserPlans.provision(
                Self.user, created: false, listed: true, profile: Self.profile, active: true, devices: PersonDevices(live: []),
                actor: "scim")
        }
        let back = try ScimUserPlans.provision(
            Self.user, created: false, listed: false, profile: Self.profile, active: false, devices: PersonDevices(live: ["d1"]),
            actor: "scim")
        #expect(back.writes.first == .saveScimProfile(userID: "u1", profile: Self.profile))
        #expect(back.writes.contains(.setDisabled(userID: "u1", disabled: true)) && back.writes.contains(.revokeDevice(id: "d1")))
        let newcomer = try ScimUserPlans.provision(
            Self.user, created: true, listed: false, profile: Self.profile, active: true, devices: PersonDevices(live: []), actor: "scim")
        #expect(!newcomer.writes.contains { if case .setDisabled = $0 { true } else { false } })
    }

    @Test func aChangeToAnotherPersonsEmailIsAConflictAndNoChangeWritesNothing() throws {
        let old = ScimUserRecord(user: Self.user, profile: Self.profile, updatedAt: nil)
        #expect(throws: ScimError.self) {
            try ScimUserPlans.update(
                old, email: "b@acme.test", holderOfEmail: "u2", profile: Self.profile, active: false, devices: PersonDevices(live: []),
                actor: "scim")
        }
        let same = try ScimUserPlans.update(
            old, email: "a@acme.test", holderOfEmail: nil, profile: Self.profile, active: nil, devices: PersonDevices(live: []),
            actor: "scim")
        #expect(same == .unchanged)
        let moved = try ScimUserPlans.update(
            old, email: "b@acme.test", holderOfEmail: nil, profile: Self.profile, active: nil, devices: PersonDevices(live: []),
            actor: "scim")
        #expect(
            moved.writes.prefix(2) == [
                .setEmail(userID: "u1", email: "b@acme.test"), .saveScimProfile(userID: "u1", profile: Self.profile),
            ])
        #expect(moved.affectedUsers == ["u1"])
        // The person's own email, in another case, is theirs to keep.
        let recased = try ScimUserPlans.update(
            old, email: "A@acme.test", holderOfEmail: "u1", profile: Self.profile, active: nil, devices: PersonDevices(live: []),
            actor: "scim")
        #expect(recased.writes.first == .setEmail(userID: "u1", email: "A@acme.test"))
    }

    @Test func removalUnlistsAuditsAndDisables() throws {
        let old = ScimUserRecord(user: Self.user, profile: Self.profile, updatedAt: nil)
        let plan = try ScimUserPlans.remove(old, devices: PersonDevices(live: []), actor: "scim")
        #expect(
            Array(plan.writes.prefix(4)) == [
                .saveScimProfile(userID: "u1", profile: Self.profile), .markScimRemoved(userID: "u1"),
                .audit(.userDeleted(actor: "scim", userID: "u1", email: "a@acme.test")), .setDisabled(userID: "u1", disabled: true),
            ])
    }
}
