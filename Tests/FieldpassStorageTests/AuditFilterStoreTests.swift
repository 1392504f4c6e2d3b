import Foundation
import Testing
@testable import FieldpassDomain
import StoreTestSupport

@Suite("Audit log filtered")
struct AuditFilterStoreTests {
    static let start = Date(timeIntervalSince1970: 1_900_000_000)

    @Test(arguments: StoreKind.allCases) func theAuditLogIsFilteredByActorActionAndPerson(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let adminID = try #require(admin.person?.id)
            let ada = try await store.ensureUser(email: "ada@example.com", environmentID: "dev", now: Self.start)
            let bob = try await store.ensureUser(email: "bob@example.com", environmentID: "dev", now: Self.start)
            let team = try await store.createTeam(name: "Field", by: admin, now: Self.start)
            _ = try await store.setRole(.manager, userID: ada.id, by: admin, managed: .none, now: Self.start)
            _ = try await store.setRole(.manager, userID: bob.id, by: .scim(environmentID: "dev"), managed: .none, now: Self.start)
            _ = try await store.addMember(userID: ada.id, teamID: team.id, by: admin, managed: .none, now: Self.start)
            _ = try await store.addMember(userID: bob.id, teamID: team.id, by: admin, managed: .none, now: Self.start)
            _ = try await store.ensureUser(email: "x@other.test", environmentID: "other", now: Self.start)
            func log(_ filter: AuditFilter, before: Int64? = nil) async throws -> [String] {
                try await store.auditLog(environmentID: "dev", filter: filter, before: before, limit: 10).map {
                    "\($0.action) \($0.target)"
                }
            }
            #expect(try await log(AuditFilter(actor: "scim")) == ["user.role user:\(bob.id)"])
            #expect(
                try await log(AuditFilter(action: "user.role")) == [
                    "user.role user:\(bob.id)", "user.role user:\(ada.id)", "user.role user:\(adminID)",
                ])
            #expect(try await log(AuditFilter(actor: admin.actor, action: "user.role")) == ["user.role user:\(ada.id)"])
            let adas = ["team.add_member team:\(team.id)", "user.role user:\(ada.id)", "user.create user:\(ada.id)"]
            #expect(try await log(AuditFilter(personID: ada.id)) == adas)
            #expect(try await log(AuditFilter(personID: "nobody")).isEmpty)
            let all = try await store.auditLog(environmentID: "dev", filter: .all, before: nil, limit: 10)
            // The admin's creation and role, by the CLI, then the seven above.
            #expect(all.count == 9)
            #expect(try await store.auditLog(environmentID: "dev", before: nil, limit: 10) == all)
            // Paging with a filter: older entries than the first of the page only.
            let newest = try #require(
                try await store.auditLog(environmentID: "dev", filter: AuditFilter(personID: ada.id), before: nil, limit: 1).first)
            #expect(try await log(AuditFilter(personID: ada.id), before: newest.id) == Array(adas.dropFirst()))
        }
    }
}
