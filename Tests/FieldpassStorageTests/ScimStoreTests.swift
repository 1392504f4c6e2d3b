import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("SCIM store")
struct ScimStoreTests {
    @Test(arguments: StoreKind.allCases) func provisioningCreatesThePersonAndTheirRealmOnce(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let profile = ScimProfile(
                externalID: "oid-1", displayName: "Ada", name: ["givenName": "Ada"],
                emails: [ScimEmail(value: "ada@example.com", type: "work")])
            let record = try await store.provisionScimUser(
                email: "ada@example.com", profile: profile, active: true, environmentID: "dev", actor: "scim", now: Date())
            await #expect(throws: ScimError.self) {
                _ = try await store.provisionScimUser(
                    email: "ada@example.com", profile: profile, active: true, environmentID: "dev", actor: "scim", now: Date())
            }
            #expect(record.profile == profile && record.user.email == "ada@example.com" && !record.user.disabled)
            let feed = try await store.realmFeed(environmentID: "dev", after: 0, initialized: nil, limit: 100)
            #expect(feed.map(\.userID) == [record.user.id])
            let byExternalID = try await store.scimUsers(environmentID: "dev", filter: ("externalId", "oid-1"), offset: 0, limit: 10)
            #expect(byExternalID.total == 1 && byExternalID.items == [record])
            #expect(try await store.scimUsers(environmentID: "other", filter: nil, offset: 0, limit: 10).total == 0)
            #expect(try await store.scimUser(id: record.user.id, environmentID: "other") == nil)
            let log = try await store.auditLog(environmentID: "dev", before: nil, limit: 10)
            // Created where every person is, then given their SCIM attributes: both by `scim`.
            #expect(log.map(\.action) == ["user.update", "user.create"] && log.allSatisfy { $0.actor == "scim" })
        }
    }

    @Test(arguments: StoreKind.allCases) func updatesChangeEmailAndProfileAndAuditOnlyChanges(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let record = try await store.provisionScimUser(
                email: "a@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date())
            _ = try await store.ensureUser(email: "taken@example.com", environmentID: "dev", now: Date())
            let updated = try await store.replaceScimUser(
                id: record.user.id, email: "b@example.com", profile: ScimProfile(displayName: "B"), active: nil, environmentID: "dev",
                actor: "scim", now: Date()
            )
            _ = try await store.replaceScimUser(
                id: record.user.id, email: "b@example.com", profile: ScimProfile(displayName: "B"), active: nil, environmentID: "dev",
                actor: "scim", now: Date()
            )
            await #expect(throws: ScimError.self) {
                _ = try await store.replaceScimUser(
                    id: record.user.id, email: "taken@example.com", profile: ScimProfile(), active: nil, environmentID: "dev",
                    actor: "scim", now: Date()
                )
            }
            #expect(updated.user.email == "b@example.com" && updated.profile.displayName == "B")
            let log = try await store.auditLog(environmentID: "dev", before: nil, limit: 10)
            #expect(log.map { "\($0.action) \($0.actor)" } == ["user.update scim", "user.create cli", "user.create scim"])
            #expect(log.first?.after == ["email": "b@example.com", "display_name": "B"])
        }
    }

    @Test(arguments: StoreKind.allCases) func removalHidesThePersonAndProvisioningTakesThemBack(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let record = try await store.provisionScimUser(
                email: "a@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date())
            try await store.removeScimUser(id: record.user.id, environmentID: "dev", actor: "scim", now: Date())
            #expect(try await store.scimUser(id: record.user.id, environmentID: "dev") == nil)
            #expect(try await store.scimUsers(environmentID: "dev", filter: nil, offset: 0, limit: 10).total == 0)
            #expect(try await store.user(id: record.user.id, environmentID: "dev") != nil)
            // Still the IdP's: only it may bring the person back (by creating them again).
            #expect(try await store.isScimManaged(userID: record.user.id, teamID: nil, environmentID: "dev"))
            #expect(try await !store.isScimManaged(userID: record.user.id, teamID: nil, environmentID: "other"))
            let back = try await store.provisionScimUser(
                email: "a@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date())
            #expect(back.user.id == record.user.id)
            #expect(try await store.isScimManaged(userID: record.user.id, teamID: nil, environmentID: "dev"))
        }
    }

    /// Role groups named "Leads" (or with the external id "oid-leads") make managers, "Chiefs" admins.
    static let roles = RoleClaimMapping(
        claim: "roles", map: ["Chiefs": .admin, "Leads": .manager, "oid-leads": .manager], defaultRole: nil, sync: .everySignIn)

    @Test(arguments: StoreKind.allCases) func groupsAreTeamsOrRoleGroupsWithMembers(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let person = try await store.provisionScimUser(
                email: "a@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date())
            let team = try await store.createTeam(name: "North", by: .scim(environmentID: "dev"), now: Date())
            let teamGroup = try await store.createScimGroup(
                kind: .team, displayName: "north", externalID: "oid-north", members: [person.user.id], roles: Self.roles,
                environmentID: "dev", actor: "scim", now: Date()
            )
            let roleGroup = try await store.createScimGroup(
                kind: .roleGroup, displayName: "Leads", externalID: "oid-leads", members: [person.user.id, person.user.id],
                roles: Self.roles,
                environmentID: "dev", actor: "scim", now: Date()
            )

            #expect(teamGroup.id == team.id && teamGroup.displayName == "North", "the group takes the team over, its spelling too")
            #expect(try await store.scimGroup(id: team.id, environmentID: "dev")?.members == [person.user.id])
            #expect(try await store.team(id: team.id, environmentID: "dev")?.members == [person.user.id])
            #expect(try await store.scimGroup(id: roleGroup.id, environmentID: "dev")?.members == [person.user.id])
            #expect(try await store.user(id: person.user.id, environmentID: "dev")?.role == .manager)
            let byName = try await store.scimGroups(environmentID: "dev", filter: ("displayName", "north"), offset: 0, limit: 10)
            #expect(byName.items.map(\.id) == [team.id])
            #expect(try await store.isScimManaged(userID: nil, teamID: team.id, environmentID: "dev"))
            #expect(try await !store.isScimManaged(userID: nil, teamID: team.id, environmentID: "other"))
            #expect(try await store.scimGroups(environmentID: "other", filter: nil, offset: 0, limit: 10).total == 0)

            try await store.deleteTeam(id: team.id, by: .scim(environmentID: "dev"), now: Date())
            try await store.deleteScimGroup(id: roleGroup.id, roles: Self.roles, environmentID: "dev", actor: "scim", now: Date())
            #expect(try await store.scimGroups(environmentID: "dev", filter: nil, offset: 0, limit: 10).total == 0)
            let actions = try await store.auditLog(environmentID: "dev", before: nil, limit: 20).map(\.action)
            #expect(
                actions.filter { $0.hasPrefix("role_group.") } == [
                    "role_group.delete", "role_group.remove_member", "role_group.add_member", "role_group.create",
                ])
        }
    }

    @Test(arguments: StoreKind.allCases) func renamingARoleGroupMovesItsMembersRolesInTheSameTransaction(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let person = try await store.provisionScimUser(
                email: "a@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date())
            let group = try await store.createScimGroup(
                kind: .roleGroup, displayName: "Leads", externalID: nil, members: [person.user.id], roles: Self.roles,
                environmentID: "dev", actor: "scim", now: Date()
            )
            #expect(try await store.user(id: person.user.id, environmentID: "dev")?.role == .manager)

            _ = try await store.replaceScimGroup(
                id: group.id, displayName: "Chiefs", externalID: nil, members: group.members, roles: Self.roles,
                environmentID: "dev", actor: "scim", now: Date()
            )
            #expect(try await store.user(id: person.user.id, environmentID: "dev")?.role == .admin)
            // A rename to a name that maps to nothing keeps the role.
            _ = try await store.replaceScimGroup(
                id: group.id, displayName: "Others", externalID: nil, members: group.members, roles: Self.roles,
                environmentID: "dev", actor: "scim", now: Date()
            )
            #expect(try await store.user(id: person.user.id, environmentID: "dev")?.role == .admin)
            let changes = try await store.auditLog(environmentID: "dev", before: nil, limit: 20).filter { $0.action == "user.role" }
            #expect(changes.map(\.actor) == ["scim", "scim"])
        }
    }

    /// A member who is no person SCIM lists in the environment fails the whole change: the
    /// rename and the other members with it.
    @Test(arguments: StoreKind.allCases) func aGroupChangeIsWholeOrNothing(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let person = try await store.provisionScimUser(
                email: "a@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date())
            let stranger = try await store.ensureUser(email: "b@other.test", environmentID: "other", now: Date())
            let group = try await store.createScimGroup(
                kind: .roleGroup, displayName: "Leads", externalID: nil, members: [], roles: Self.roles, environmentID: "dev",
                actor: "scim",
                now: Date()
            )
            await #expect(throws: ScimError.invalidValue("Member \(stranger.id) is not a user of this environment.")) {
                _ = try await store.replaceScimGroup(
                    id: group.id, displayName: "Chiefs", externalID: nil, members: [person.user.id, stranger.id], roles: Self.roles,
                    environmentID: "dev", actor: "scim", now: Date()
                )
            }
            let unchanged = try await store.scimGroup(id: group.id, environmentID: "dev")
            #expect(unchanged?.displayName == "Leads" && unchanged?.members == [])
            #expect(try await store.user(id: person.user.id, environmentID: "dev")?.role == .worker)
        }
    }

    /// Creating a group is one transaction: a refused member or a name another group has takes
    /// the team the group would have made back too.
    @Test(arguments: StoreKind.allCases) func creatingAGroupIsWholeOrNothing(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let stranger = try await store.ensureUser(email: "b@other.test", environmentID: "other", now: Date())
            _ = try await store.createScimGroup(
                kind: .roleGroup, displayName: "Leads", externalID: nil, members: [], roles: Self.roles, environmentID: "dev",
                actor: "scim",
                now: Date()
            )
            await #expect(throws: ScimError.invalidValue("Member \(stranger.id) is not a user of this environment.")) {
                _ = try await store.createScimGroup(
                    kind: .team, displayName: "South", externalID: nil, members: [stranger.id], roles: Self.roles, environmentID: "dev",
                    actor: "scim", now: Date()
                )
            }
            await #expect(throws: ScimError.self) {
                _ = try await store.createScimGroup(
                    kind: .team, displayName: "LEADS", externalID: nil, members: [], roles: Self.roles, environmentID: "dev", actor: "scim",
                    now: Date()
                )
            }
            #expect(try await store.teams(environmentID: "dev").isEmpty)
            #expect(
                try await store.scimGroups(environmentID: "dev", filter: nil, offset: 0, limit: 10).items.map(\.displayName) == ["Leads"])
        }
    }

    /// One SCIM request is one transaction: a refused change of email takes the deactivation
    /// sent with it back too, and a person created inactive is never active.
    @Test(arguments: StoreKind.allCases) func aUserChangeIsWholeOrNothing(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let record = try await store.provisionScimUser(
                email: "a@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date())
            _ = try await store.ensureUser(email: "taken@example.com", environmentID: "dev", now: Date())
            await #expect(throws: ScimError.self) {
                _ = try await store.replaceScimUser(
                    id: record.user.id, email: "taken@example.com", profile: ScimProfile(), active: false, environmentID: "dev",
                    actor: "scim", now: Date()
                )
            }
            #expect(try await store.user(id: record.user.id, environmentID: "dev")?.disabled == false)
            let inactive = try await store.provisionScimUser(
                email: "c@example.com", profile: ScimProfile(), active: false, environmentID: "dev", actor: "scim", now: Date())
            #expect(inactive.user.disabled)
            let removed = try await store.replaceScimUser(
                id: record.user.id, email: "a@example.com", profile: ScimProfile(), active: false, environmentID: "dev", actor: "scim",
                now: Date()
            )
            #expect(removed.user.disabled)
            try await store.removeScimUser(id: inactive.user.id, environmentID: "dev", actor: "scim", now: Date())
            #expect(try await store.user(id: inactive.user.id, environmentID: "dev")?.disabled == true)
        }
    }

    /// A change is made of the person and the group as its transaction reads them; what the
    /// change throws reaches the caller as thrown and undoes everything, and so does a person
    /// joining whom SCIM removed (read in the same transaction).
    @Test(arguments: StoreKind.allCases) func aChangeSeesWhatIsStoredAndWhatItThrowsChangesNothing(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let person = try await store.provisionScimUser(
                email: "a@example.com", profile: ScimProfile(displayName: "Ada"), active: true, environmentID: "dev", actor: "scim",
                now: Date())
            let refusal = ScimError.mutability("refused by the change")
            await #expect(throws: refusal) {
                _ = try await store.updateScimUser(id: person.user.id, environmentID: "dev", actor: "scim", now: Date()) { current in
                    guard current.profile.displayName == "Ada" else {
                        return ScimUserResource(userName: "x@example.com", profile: ScimProfile(), active: nil)
                    }
                    throw refusal
                }
            }
            #expect(try await store.scimUser(id: person.user.id, environmentID: "dev") == person)

            let removed = try await store.provisionScimUser(
                email: "gone@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date())
            try await store.removeScimUser(id: removed.user.id, environmentID: "dev", actor: "scim", now: Date())
            let group = try await store.createScimGroup(
                kind: .team, displayName: "North", externalID: nil, members: [], roles: Self.roles, environmentID: "dev", actor: "scim",
                now: Date())
            await #expect(throws: ScimError.invalidValue("Member \(removed.user.id) is not a user of this environment.")) {
                _ = try await store.updateScimGroup(id: group.id, roles: Self.roles, environmentID: "dev", actor: "scim", now: Date()) {
                    current in
                    ScimGroupResource(displayName: "South", externalID: nil, members: current.members + [person.user.id, removed.user.id])
                }
            }
            await #expect(throws: refusal) {
                _ = try await store.updateScimGroup(id: group.id, roles: Self.roles, environmentID: "dev", actor: "scim", now: Date()) {
                    _ in
                    throw refusal
                }
            }
            #expect(try await store.scimGroup(id: group.id, environmentID: "dev") == group)
            #expect(try await store.team(id: group.id, environmentID: "dev")?.name == "North")
            await #expect(throws: DirectoryError.unknownTeam) {
                _ = try await store.updateScimGroup(id: "nobody", roles: Self.roles, environmentID: "dev", actor: "scim", now: Date()) {
                    _ in throw refusal
                }
            }
        }
    }

    /// Two IdP requests creating one new person at once: one creates, the other is told so.
    @Test(arguments: StoreKind.allCases) func concurrentCreationsOfOnePersonGiveOneConflict(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            for round in 0..<10 {
                let email = "twin\(round)@example.com"
                let outcomes = await withTaskGroup(of: Bool?.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            do {
                                _ = try await store.provisionScimUser(
                                    email: email, profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date()
                                )
                                return true
                            } catch is ScimError {
                                return false
                            } catch {
                                return nil
                            }
                        }
                    }
                    return await group.reduce(into: [Bool?]()) { $0.append($1) }
                }
                #expect(outcomes.sorted { ($0 ?? false) && !($1 ?? false) } == [true, false], "round \(round): \(outcomes)")
            }
        }
    }
}

/// A PUT, as the SCIM service hands it to the store: a change that ignores what is stored.
extension ScimStore {
    func replaceScimUser(
        id: String, email: String, profile: ScimProfile, active: Bool?, environmentID: String, actor: String, now: Date
    ) async throws -> ScimUserRecord {
        try await updateScimUser(id: id, environmentID: environmentID, actor: actor, now: now) { _ in
            ScimUserResource(userName: email, profile: profile, active: active)
        }
    }

    func replaceScimGroup(
        id: String, displayName: String, externalID: String?, members: [String], roles: RoleClaimMapping?, environmentID: String,
        actor: String, now: Date
    ) async throws -> ScimGroupRecord {
        try await updateScimGroup(id: id, roles: roles, environmentID: environmentID, actor: actor, now: now) { _ in
            ScimGroupResource(displayName: displayName, externalID: externalID, members: members)
        }
    }
}
