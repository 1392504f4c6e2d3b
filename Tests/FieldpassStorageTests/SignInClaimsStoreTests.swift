import Foundation
import Testing
@testable import FieldpassDomain
import StoreTestSupport

@Suite("Roles and teams from the IdP, applied by each store with the sign-in")
struct SignInClaimsStoreTests {
    static let mapping = TeamClaimMapping(
        claim: "groups", map: ["g-n": "North", "g-s": "South", "g-e": "East"], prefix: nil, sync: .everySignIn)

    static func attempt(_ userID: String, subject: String, role: Role?, teams: [String]) -> SignInAttempt {
        let claims = MappedClaims(
            role: role.map { MappedClaims.MappedRole(role: $0, sync: .everySignIn) },
            teams: MappedClaims.MappedTeams(names: teams, mapping: mapping)
        )
        return SignInAttempt(userID: userID, issuer: "https://idp.test", subject: subject, promoteToAdmin: false, claims: claims)
    }

    /// The facts of a sign-in that went ahead.
    static func facts(_ outcome: SignInOutcome) -> AccessFacts? {
        guard case .signedIn(let facts) = outcome else { return nil }
        return facts
    }

    @Test(arguments: StoreKind.allCases) func theFirstSignInsFactsCarryTheClaimsRoleAndTeams(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "alice@example.com", environmentID: "dev", now: Date())
            let north = try await store.createTeam(name: "north", by: .cli(environmentID: "dev"), now: Date())
            let office = try await store.createTeam(name: "Office", by: .cli(environmentID: "dev"), now: Date())
            _ = try await store.addMember(userID: user.id, teamID: office.id, by: .cli(environmentID: "dev"), managed: .none, now: Date())

            let first = try #require(
                Self.facts(
                    try await store.recordSignIn(
                        Self.attempt(user.id, subject: "a", role: .manager, teams: ["North", "South"]), now: Date())))

            #expect(first.user.role == .manager)
            let south = try #require(try await store.teams(environmentID: "dev").first { $0.name == "South" })
            #expect(Set(first.teams) == [north.id, office.id, south.id], "North is the existing north; Office is the admins'")
            let audit = try await store.auditLog(environmentID: "dev", before: nil, limit: 4).reversed().map {
                [$0.actor, $0.action, $0.target]
            }
            #expect(
                audit == [
                    ["idp", "user.role", "user:\(user.id)"], ["idp", "team.add_member", "team:\(north.id)"],
                    ["idp", "team.create", "team:\(south.id)"], ["idp", "team.add_member", "team:\(south.id)"],
                ])

            let second = try #require(
                Self.facts(try await store.recordSignIn(Self.attempt(user.id, subject: "a", role: nil, teams: ["South"]), now: Date())))

            #expect(second.user.role == .manager, "no role in the claim keeps the role")
            #expect(Set(second.teams) == [office.id, south.id])
            let left = try #require(try await store.auditLog(environmentID: "dev", before: nil, limit: 1).first)
            #expect([left.actor, left.action, left.target] == ["idp", "team.remove_member", "team:\(north.id)"])
        }
    }

    @Test(arguments: StoreKind.allCases) func concurrentFirstSignInsShareTheTeamTheyCreate(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            var users: [String] = []
            for index in 0..<6 {
                users.append(try await store.ensureUser(email: "crew\(index)@example.com", environmentID: "dev", now: Date()).id)
            }

            try await withThrowingTaskGroup(of: Void.self) { group in
                for (index, userID) in users.enumerated() {
                    group.addTask {
                        _ = try #require(
                            Self.facts(
                                try await store.recordSignIn(
                                    Self.attempt(userID, subject: "s\(index)", role: nil, teams: ["East"]), now: Date())))
                    }
                }
                try await group.waitForAll()
            }

            let teams = try await store.teams(environmentID: "dev")
            #expect(teams.map(\.name) == ["East"])
            #expect(Set(teams.first?.members ?? []) == Set(users))
            let creations = try await store.auditLog(environmentID: "dev", before: nil, limit: 50).filter { $0.action == "team.create" }
            #expect(creations.count == 1 && creations.first?.actor == "idp")
        }
    }
}
