import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// A role group's rename gives its members their roles in a few statements (``RoleRecompute``):
/// the same roles, audit entries and lifecycle events the rule gives each member one by one.
@Suite("SCIM store: a role group's members' roles, recomputed at once")
struct RoleRecomputeStoreTests {
    static let roles = RoleClaimMapping(
        claim: "roles", map: ["Chiefs": .admin, "Captains": .admin, "Leads": .manager], defaultRole: nil, sync: .everySignIn)

    @Test(arguments: StoreKind.allCases) func aRenameGivesEveryMemberTheRoleOfAllTheirRoleGroups(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            func person(_ name: String) async throws -> String {
                try await store.provisionScimUser(
                    email: "\(name)@example.com", profile: ScimProfile(), active: true, environmentID: "dev", actor: "scim", now: Date()
                ).user.id
            }
            func roles(_ ids: String...) async throws -> [Role?] {
                var roles: [Role?] = []
                for id in ids { roles.append(try await store.user(id: id, environmentID: "dev")?.role) }
                return roles
            }
            let stays = try await person("stays")
            let chief = try await person("chief")
            let leaves = try await person("leaves")
            let removed = try await person("removed")
            let joins = try await person("joins")
            let leads = try await store.createScimGroup(
                kind: .roleGroup, displayName: "Leads", externalID: nil, members: [stays, chief, leaves, removed], roles: Self.roles,
                environmentID: "dev", actor: "scim", now: Date())
            _ = try await store.createScimGroup(
                kind: .roleGroup, displayName: "Chiefs", externalID: nil, members: [chief], roles: Self.roles, environmentID: "dev",
                actor: "scim", now: Date())
            // Removed by SCIM: out of the group's members, and of what its changes touch.
            try await store.removeScimUser(id: removed, environmentID: "dev", actor: "scim", now: Date())
            let before = try await store.auditLog(environmentID: "dev", before: nil, limit: 1).first?.id ?? 0
            let feed = try await store.lifecycleFeedPosition()

            _ = try await store.replaceScimGroup(
                id: leads.id, displayName: "Captains", externalID: nil, members: [stays, chief, joins], roles: Self.roles,
                environmentID: "dev", actor: "scim", now: Date())

            #expect(try await roles(stays, chief, joins) == [.admin, .admin, .admin])
            #expect(try await roles(leaves) == [.manager], "no role group left gives a role, and there is no default")
            #expect(try await roles(removed) == [.manager])
            let entries = try await store.auditLog(environmentID: "dev", before: nil, limit: 20).filter {
                $0.id > before && $0.action == "user.role"
            }
            #expect(entries.map(\.target).sorted() == ["user:\(joins)", "user:\(stays)"].sorted())
            #expect(entries.allSatisfy { $0.actor == "scim" && $0.after == ["role": "admin"] })
            #expect(entries.first { $0.target == "user:\(stays)" }?.before == ["role": "manager"])
            #expect(entries.first { $0.target == "user:\(joins)" }?.before == ["role": "worker"])
            let events = try await store.lifecycleEvents(environmentID: "dev", after: feed, limit: 20).map(\.event)
                .filter { $0.after?["role"] != nil }
            #expect(Set(events.compactMap(\.user?.id)) == [stays, joins])
            #expect(events.allSatisfy { $0.type == .userUpdated && $0.actor == "scim" && $0.after == ["role": "admin"] })

            // A name that maps to nothing: the other role groups decide, else the default.
            var withDefault = Self.roles
            withDefault.defaultRole = .worker
            _ = try await store.replaceScimGroup(
                id: leads.id, displayName: "Others", externalID: nil, members: [stays, chief, joins], roles: withDefault,
                environmentID: "dev", actor: "scim", now: Date())
            #expect(try await roles(stays, chief, joins, removed) == [.worker, .admin, .worker, .manager])
        }
    }
}
