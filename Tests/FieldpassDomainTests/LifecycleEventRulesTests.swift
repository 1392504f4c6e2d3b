import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Lifecycle event rules")
struct LifecycleEventRulesTests {
    @Test func aRoleChangeIsAUserUpdateWithTheRoleBeforeAndAfter() {
        let events = LifecycleEventRules.events(for: .roleChanged(actor: "idp", userID: "u1", from: .worker, to: .manager))
        #expect(
            events == [
                LifecycleEvent(
                    type: .userUpdated, actor: "idp", user: .init(id: "u1"), before: ["role": "worker"], after: ["role": "manager"])
            ])
    }

    @Test func aPersonActingOnSomeoneElseIsAnAdminAndOnThemselvesTheUser() {
        let byAdmin = LifecycleEventRules.events(for: .deviceRevoked(actor: "user:boss", userID: "u1", deviceID: "d1", name: "Phone"))
        #expect(byAdmin.map(\.actor) == ["admin"] && byAdmin.map(\.actorID) == ["boss"])
        #expect(byAdmin.first?.device == .init(id: "d1", name: "Phone") && byAdmin.first?.reason == "revoked")
        let bySelf = LifecycleEventRules.events(for: .deviceRevoked(actor: "user:u1", userID: "u1", deviceID: "d1", name: "Phone"))
        #expect(bySelf.map(\.actor) == ["user"])
        let byService = LifecycleEventRules.events(for: .roleChanged(actor: "service:backend", userID: "u1", from: .worker, to: .admin))
        #expect(byService.map(\.actor) == ["service"] && byService.map(\.actorID) == ["backend"])
    }

    /// The console is the admin's (or the person's own) way in, not an actor of its own.
    @Test func aConsoleActionNamesThePersonAsTheAPIWould() {
        let byAdmin = LifecycleEventRules.events(for: .disabledChanged(actor: "console:boss", userID: "u1", disabled: true))
        #expect(byAdmin.map(\.actor) == ["admin"] && byAdmin.map(\.actorID) == ["boss"])
        let member = LifecycleEventRules.events(for: .teamMembership(actor: "console:boss", teamID: "t1", userID: "u1", member: true))
        #expect(member.map(\.actor) == ["admin"] && member.map(\.actorID) == ["boss"])
        let bySelf = LifecycleEventRules.events(for: .deviceRevoked(actor: "console:u1", userID: "u1", deviceID: "d1", name: "Phone"))
        #expect(bySelf.map(\.actor) == ["user"] && bySelf.map(\.actorID) == ["u1"])
    }

    @Test func aCreationCarriesTheEmail() {
        let events = LifecycleEventRules.events(for: .userCreated(actor: "device", userID: "u1", email: "w@example.com"))
        #expect(events.map(\.type) == [.userCreated])
        #expect(events.first?.user == .init(id: "u1", email: "w@example.com"))
        #expect(events.first?.after == ["email": "w@example.com"])
    }

    @Test func disablingNamesEveryDeviceItRevokedAfterTheDisabling() {
        var entry = AuditRecord.disabledChanged(actor: "scim", userID: "u1", disabled: true)
        entry.revokedDevices = ["d1", "d2"]
        let events = LifecycleEventRules.events(for: entry)
        #expect(events.map(\.type) == [.userDisabled, .deviceRevoked, .deviceRevoked])
        #expect(events.map(\.actor) == ["scim", "scim", "scim"])
        #expect(events.dropFirst().map { $0.device?.id } == ["d1", "d2"])
        #expect(events.dropFirst().allSatisfy { $0.reason == "user_disabled" && $0.user?.id == "u1" })
        #expect(events[0].before == ["disabled": "false"] && events[0].after == ["disabled": "true"])
        #expect(
            LifecycleEventRules.events(for: .disabledChanged(actor: "cli", userID: "u1", disabled: false)).map(\.type) == [.userEnabled])
    }

    @Test func anIdentityResetRevokesEachDeviceAndSaysNothingElse() {
        let entry = AuditRecord.identityReset(actor: "cli", userID: "u1", issuer: "https://idp", subject: "s", revoked: ["d1"])
        let events = LifecycleEventRules.events(for: entry)
        #expect(events.map(\.type) == [.deviceRevoked] && events.first?.reason == "identity_reset")
        let none = AuditRecord.identityReset(actor: "cli", userID: "u1", issuer: nil, subject: "s", revoked: [])
        #expect(LifecycleEventRules.events(for: none).isEmpty)
    }

    @Test func revocationsByTheServiceAndByTheDeviceKeepTheirReason() {
        let grant = RefreshGrant(userID: "u1", deviceID: "d1", environmentID: "dev")
        #expect(
            LifecycleEventRules.events(for: .deviceRevokedOnReuse(grant)).map { [$0.actor, $0.reason] } == [
                ["fieldpass", "refresh_token_reuse"]
            ])
        #expect(
            LifecycleEventRules.events(for: .deviceRevokedByItsToken(grant)).map { [$0.actor, $0.reason] } == [
                ["user", "token_revocation"]
            ])
    }

    @Test func aMembershipIsAUserUpdateNamingTheTeam() {
        let joined = LifecycleEventRules.events(for: .teamMembership(actor: "idp", teamID: "t1", userID: "u1", member: true))
        #expect(
            joined == [
                LifecycleEvent(
                    type: .userUpdated, actor: "idp", user: .init(id: "u1"), team: .init(id: "t1"),
                    before: ["team_member": "false"], after: ["team_member": "true"]
                )
            ])
        let left = LifecycleEventRules.events(for: .teamMembership(actor: "user:u1", teamID: "t1", userID: "u1", member: false))
        #expect(left.first?.after == ["team_member": "false"] && left.first?.actor == "user")
    }

    @Test func teamsAreCreatedRenamedAndDeletedByName() {
        let created = LifecycleEventRules.events(for: .teamCreated(actor: "cli", teamID: "t1", name: "North"))
        #expect(created.map(\.type) == [.teamCreated] && created.first?.team == .init(id: "t1", name: "North"))
        let renamed = LifecycleEventRules.events(for: .teamRenamed(actor: "cli", teamID: "t1", from: "North", to: "South"))
        #expect(renamed.first?.before == ["name": "North"] && renamed.first?.after == ["name": "South"])
        #expect(renamed.first?.team == .init(id: "t1", name: "South"))
        let deleted = LifecycleEventRules.events(
            for: .teamDeleted(actor: "cli", team: TeamRecord(id: "t1", name: "South", members: ["u1"], createdAt: Date())))
        #expect(deleted.map(\.type) == [.teamDeleted] && deleted.first?.before == ["name": "South", "members": "u1"])
    }

    @Test func aDeletionIsDefinedForWhatRemovesPeople() {
        let events = LifecycleEventRules.events(
            for: .userDeleted(actor: "scim", userID: "u1", email: "w@example.com", revokedDevices: ["d1"]))
        #expect(events.map(\.type) == [.userDeleted, .deviceRevoked])
        #expect(events.first?.user == .init(id: "u1", email: "w@example.com"))
    }

    @Test func whatTheBackendHasNoUseForMakesNoEvent() {
        #expect(LifecycleEventRules.events(for: .loginFailed(error: "access_denied", userID: "u1", deviceID: "d1")).isEmpty)
        #expect(LifecycleEventRules.events(for: .grant(actor: "cli", userID: "u1", realmPath: "/tasks", from: nil, to: .read)).isEmpty)
    }
}
