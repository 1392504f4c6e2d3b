import Foundation
import Testing
@testable import FieldpassDomain

@Suite("Realm permissions")
struct RealmPolicyTests {
    let policy = RealmPolicy(roles: .standard)

    func facts(_ role: Role, teams: [String] = [], grants: [String: RealmAccess] = [:]) -> AccessFacts {
        AccessFacts(
            user: UserRecord(id: "u1", environmentID: "dev", email: "a@example.com", role: role, createdAt: Date(), disabled: false),
            teams: teams, grants: grants
        )
    }

    @Test func roleDefaultsFollowTheDesignTable() {
        #expect(policy.realms(for: facts(.admin)) == ["/common": .manage, "/tasks": .manage, "/teams/*": .manage, "/users/*": .manage])
        #expect(policy.realms(for: facts(.manager)) == ["/common": .write, "/tasks": .write, "/teams/*": .write, "/users/u1": .write])
        #expect(policy.realms(for: facts(.worker)) == ["/common": .write, "/users/u1": .write])
    }

    /// Every role writes its own personal realm, the one `realm_initialized` names.
    @Test(arguments: Role.allCases) func everyRoleWritesItsOwnPersonalRealm(_ role: Role) {
        let realms = policy.realms(for: facts(role))
        #expect((realms["/users/u1"] ?? realms["/users/*"]).map { $0 >= .write } == true)
    }

    /// A grant stored before the rule existed cannot reach another environment's realms.
    @Test func aTokenNeverCarriesAnotherEnvironmentsRealms() {
        let mixed = RealmPolicy(roles: .standard, prefixes: RealmPrefixes(["acme": "/acme"]))
        let grants: [String: RealmAccess] = ["/acme/*": .manage, "/acme/common": .write, "/acme": .read, "/*": .manage, "/tasks": .read]
        let realms = mixed.realms(for: facts(.worker, grants: grants))
        #expect(realms == ["/common": .write, "/users/u1": .write, "/tasks": .read])
    }

    @Test func aWorkerWritesTheRealmsOfTheirTeams() {
        let realms = policy.realms(for: facts(.worker, teams: ["t1", "t2"]))
        #expect(realms["/teams/t1"] == .write)
        #expect(realms["/teams/t2"] == .write)
        #expect(realms["/teams/t3"] == nil)
    }

    @Test func grantsAddAndTheHighestLevelWins() {
        let realms = policy.realms(for: facts(.worker, teams: ["t1"], grants: ["/tasks": .read, "/common": .read, "/teams/t1": .manage]))
        #expect(realms["/tasks"] == .read)
        #expect(realms["/common"] == .write)
        #expect(realms["/teams/t1"] == .manage)
    }
}
