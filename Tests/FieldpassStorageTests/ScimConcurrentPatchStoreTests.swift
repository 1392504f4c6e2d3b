import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// A SCIM PATCH is read, patched, checked and written in one transaction, under the person's
/// (or group's) lock: of two PATCHes of one resource at once (Entra ID and Okta send them in
/// bursts), each takes effect, in some order; neither overwrites the other with what it read.
@Suite("SCIM store: concurrent PATCHes")
struct ScimConcurrentPatchStoreTests {
    static let rounds = 20

    @Test(arguments: StoreKind.allCases) func twoPatchesOfOnePersonBothTakeEffect(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            for round in 0..<Self.rounds {
                let person = try await store.provisionScimUser(
                    email: "burst\(round)@example.com", profile: ScimProfile(displayName: "Before", name: ["givenName": "Before"]),
                    active: true, environmentID: "dev", actor: "scim", now: Date()
                )
                let id = person.user.id
                try await Self.atOnce(
                    { try await Self.patch(store, person: id, .replace, "name.givenName", .string("Given \(round)")) },
                    { try await Self.patch(store, person: id, .replace, "displayName", .string("Shown \(round)")) }
                )
                let after = try #require(try await store.scimUser(id: id, environmentID: "dev")).profile
                #expect(
                    after.name["givenName"] == "Given \(round)" && after.displayName == "Shown \(round)",
                    "round \(round): \(after)")
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func twoPatchesOfOneGroupBothTakeEffect(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            for round in 0..<Self.rounds {
                var joining: [String] = []
                for who in ["first", "second"] {
                    joining.append(
                        try await store.provisionScimUser(
                            email: "\(who)\(round)@example.com", profile: ScimProfile(), active: true, environmentID: "dev",
                            actor: "scim", now: Date()
                        ).user.id)
                }
                // Teams and role groups, in turn: each plans its members' changes its own way.
                let group = try await store.createScimGroup(
                    kind: round.isMultiple(of: 2) ? .team : .roleGroup, displayName: "Crew \(round)", externalID: nil, members: [],
                    roles: ScimStoreTests.roles, environmentID: "dev", actor: "scim", now: Date()
                )
                let (first, second) = (joining[0], joining[1])
                try await Self.atOnce(
                    { try await Self.patch(store, group: group.id, .add, "members", .array([.object(["value": .string(first)])])) },
                    { try await Self.patch(store, group: group.id, .add, "members", .array([.object(["value": .string(second)])])) }
                )
                let members = try #require(try await store.scimGroup(id: group.id, environmentID: "dev")).members
                #expect(members == joining.sorted(), "round \(round)")
            }
        }
    }

    /// Runs both at once and waits for both.
    private static func atOnce(
        _ one: @escaping @Sendable () async throws -> Void, _ other: @escaping @Sendable () async throws -> Void
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask(operation: one)
            group.addTask(operation: other)
            try await group.waitForAll()
        }
    }

    /// One PATCH operation, as the SCIM service applies it: to the person as stored.
    private static func patch(
        _ store: any FieldpassStore, person id: String, _ op: ScimPatch.Op, _ path: String, _ value: ScimJSON
    ) async throws {
        let operation = ScimPatch.Operation(op: op, path: try ScimPath.parse(path), value: value)
        _ = try await store.updateScimUser(id: id, environmentID: "dev", actor: "scim", now: Date()) { current in
            try ScimUserResource.parse(.object(try ScimPatch.apply([operation], to: ScimUserResource.attributes(of: current))))
        }
    }

    /// One PATCH operation, as the SCIM service applies it: to the group as stored.
    private static func patch(
        _ store: any FieldpassStore, group id: String, _ op: ScimPatch.Op, _ path: String, _ value: ScimJSON
    ) async throws {
        let operation = ScimPatch.Operation(op: op, path: try ScimPath.parse(path), value: value)
        _ = try await store.updateScimGroup(id: id, roles: ScimStoreTests.roles, environmentID: "dev", actor: "scim", now: Date()) {
            current in
            try ScimGroupResource.parse(.object(try ScimPatch.apply([operation], to: ScimGroupResource.attributes(of: current))))
        }
    }
}
