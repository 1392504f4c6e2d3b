import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Directory store")
struct DirectoryStoreTests {
    @Test(arguments: StoreKind.allCases) func repeatingAChangeLogsItOnce(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let user = try await store.ensureUser(email: "w@example.com", environmentID: "dev", now: Date())
            for _ in 0..<2 {
                _ = try await store.setRole(.manager, userID: user.id, by: admin, managed: .none, now: Date())
                _ = try await store.changeGrant(.read, realmPath: "/tasks", userID: user.id, by: admin, now: Date())
            }
            let log = try await store.auditLog(environmentID: "dev", before: nil, limit: 10)
            try #require(log.map(\.action).prefix(3) == ["grant.set", "user.role", "user.create"])
            #expect(log[1].before == ["role": "worker"])
            #expect(log[1].after == ["role": "manager"])
            #expect(log[1].actor == admin.actor)
            #expect(try await store.auditLog(environmentID: "other", before: nil, limit: 10).isEmpty)
        }
    }

    /// Leaving a team takes the team's realm out of the person's realms.
    @Test(arguments: StoreKind.allCases) func leavingATeamRemovesItsRealm(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let policy = RealmPolicy(roles: .standard)
            let worker = try await store.ensureUser(email: "w@example.com", environmentID: "dev", now: Date())
            let team = try await store.createTeam(name: "North", by: .cli(environmentID: "dev"), now: Date())
            _ = try await store.addMember(userID: worker.id, teamID: team.id, by: .cli(environmentID: "dev"), managed: .none, now: Date())
            let joined = try #require(try await store.accessFacts(userID: worker.id, environmentID: "dev"))
            #expect(policy.realms(for: joined)[team.realmPath] == .write)

            _ = try await store.removeMember(
                userID: worker.id, teamID: team.id, by: .cli(environmentID: "dev"), managed: .none, now: Date())
            let left = try #require(try await store.accessFacts(userID: worker.id, environmentID: "dev"))
            #expect(policy.realms(for: left)[team.realmPath] == nil)
        }
    }

    /// A role given by email creates a person who never signed in and gives them the role in
    /// one transaction; for someone known, it only sets the role.
    @Test(arguments: StoreKind.allCases) func aRoleByEmailCreatesThePersonAndSetsTheRoleAtOnce(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let created = try await store.setRole(
                .manager, email: "new@example.com", by: .cli(environmentID: "dev"), managed: .none, now: Date())
            let again = try await store.setRole(
                .admin, email: "new@example.com", by: .cli(environmentID: "dev"), managed: .none, now: Date())
            #expect(created.role == .manager && created.email == "new@example.com" && again.id == created.id && again.role == .admin)
            #expect(try await store.user(id: created.id, environmentID: "dev")?.role == .admin)
            let log = try await store.auditLog(environmentID: "dev", before: nil, limit: 10)
            #expect(log.map(\.action) == ["user.role", "user.role", "user.create"] && log.allSatisfy { $0.actor == "cli" })
            let feed = try await store.realmFeed(environmentID: "dev", after: 0, initialized: nil, limit: 10)
            #expect(feed.map(\.userID) == [created.id])
        }
    }

    @Test(arguments: StoreKind.allCases) func aBootstrapAdminIsPromotedAtTheFirstSignInOnly(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Date())
            let attempt = SignInAttempt(userID: user.id, issuer: "https://idp.test", subject: "s", promoteToAdmin: true)
            guard case .signedIn(let first) = try await store.recordSignIn(attempt, now: Date()) else {
                Issue.record("first sign-in refused")
                return
            }
            #expect(first.user.role == .admin)
            _ = try await store.setRole(.worker, userID: user.id, by: .cli(environmentID: "dev"), managed: .none, now: Date())
            // An identity reset does not make the person new again.
            try await store.resetIdentity(userID: user.id, by: .cli(environmentID: "dev"), now: Date())
            guard case .signedIn(let second) = try await store.recordSignIn(attempt, now: Date()) else {
                Issue.record("second sign-in refused")
                return
            }
            #expect(second.user.role == .worker)
        }
    }

    @Test(arguments: StoreKind.allCases) func theFeedListsEachNewRealmOnceAfterItsCursor(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let start = try await store.realmFeed(environmentID: "dev", after: 0, initialized: nil, limit: 1000).last?.feedSeq ?? 0
            var created: [String] = []
            for index in 0..<25 {
                created.append(try await store.ensureUser(email: "u\(index)@example.com", environmentID: "dev", now: Date()).id)
            }
            _ = try await store.ensureUser(email: "x@other.test", environmentID: "other", now: Date())
            var seen: [String] = []
            var position = start
            while true {
                let page = try await store.realmFeed(environmentID: "dev", after: position, initialized: false, limit: 7)
                guard let last = page.last else { break }
                seen += page.map(\.userID)
                position = last.feedSeq
            }
            #expect(seen == created)

            _ = try await store.markRealmInitialized(path: RealmPath.personal(userID: created[0]), environmentID: "dev", now: Date())
            let changed = try await store.realmFeed(environmentID: "dev", after: position, initialized: nil, limit: 10)
            #expect(changed.map(\.userID) == [created[0]])
            #expect(changed.first?.initialized == true)
            #expect(try await store.realmFeed(environmentID: "dev", after: position, initialized: false, limit: 10).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRefreshTokenWorksOnceAndItsReuseRevokesTheDevice(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, state) = try await environment.register()
            let taken = try #require(try await store.consumeState(state, now: Date()))
            _ = try await store.completeLogin(CompletedLogin.test(taken), now: Date())
            func rotate(_ old: String, to new: String) async throws -> RefreshOutcome {
                try await store.rotateRefreshToken(
                    RefreshRotation(oldHash: old, newHash: new, sealedSuccessor: nil, ttl: 3000, grace: 0), now: Date()
                )
            }
            let grant = RefreshGrant(userID: session.userID, deviceID: session.deviceID, environmentID: "dev")
            #expect(try await rotate("hash-\(session.id)", to: "second") == .rotated(grant))
            #expect(try await rotate("hash-\(session.id)", to: "third") == .refused)
            #expect(try await rotate("second", to: "fourth") == .refused)
            let devices = try await store.devices(userID: session.userID, environmentID: "dev")
            #expect(devices.map(\.revokedAt).allSatisfy { $0 != nil })
        }
    }

    @Test(arguments: StoreKind.allCases) func theCallersStandingIsReadInsideTheChange(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            // The caller as their request was authenticated: an admin then.
            let stale = try await environment.admin()
            let worker = try await store.ensureUser(email: "w@example.com", environmentID: "dev", now: Date())
            let bossID = try #require(stale.person?.id)
            _ = try await store.setRole(.worker, userID: bossID, by: .cli(environmentID: "dev"), managed: .none, now: Date())
            await #expect(throws: DirectoryError.notAllowed(.administer)) {
                _ = try await store.setRole(.admin, userID: worker.id, by: stale, managed: .none, now: Date())
            }
            await #expect(throws: DirectoryError.notAllowed(.administer)) {
                _ = try await store.createTeam(name: "North", by: stale, now: Date())
            }
            // Signing out one's own device needs no role.
            await #expect(throws: DirectoryError.unknownDevice) {
                try await store.revokeDevice(id: "none", userID: bossID, by: stale, now: Date())
            }
            #expect(try await store.user(id: worker.id, environmentID: "dev")?.role == .worker)
            #expect(try await store.teams(environmentID: "dev").isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func aScimGroupsTeamIsChangedByTheIdPAlone(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let worker = try await store.ensureUser(email: "w@example.com", environmentID: "dev", now: Date())
            let group = try await store.createScimGroup(
                kind: .team, displayName: "North", externalID: nil, members: [], roles: nil, environmentID: "dev", actor: "scim",
                now: Date())
            let teamID = try #require(group.teamID)
            await #expect(throws: DirectoryError.teamManagedByScim) {
                _ = try await store.renameTeam(id: teamID, to: "South", by: admin, now: Date())
            }
            await #expect(throws: DirectoryError.teamManagedByScim) {
                _ = try await store.addMember(userID: worker.id, teamID: teamID, by: admin, managed: .none, now: Date())
            }
            await #expect(throws: DirectoryError.teamManagedByScim) { try await store.deleteTeam(id: teamID, by: admin, now: Date()) }
            #expect(try await store.team(id: teamID, environmentID: "dev")?.name == "North")
            _ = try await store.renameTeam(id: teamID, to: "South", by: .scim(environmentID: "dev"), now: Date())
            #expect(try await store.team(id: teamID, environmentID: "dev")?.name == "South")
        }
    }
}
