import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Lifecycle events store")
struct LifecycleEventStoreTests {
    /// The events of `environmentID` after `position`, as (type, actor).
    private static func events(
        _ store: any FieldpassStore, environmentID: String = "dev", after position: Int64 = 0
    ) async throws -> [LifecycleFeedEntry] {
        try await store.lifecycleEvents(environmentID: environmentID, after: position, limit: 1000)
    }

    @Test(arguments: StoreKind.allCases) func eachChangeGivesItsEventsOnceInOrder(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let boss = try await environment.admin()
            let start = try await store.lifecycleFeedPosition()
            let (session, _) = try await environment.register(email: "w@example.com")
            let userID = session.userID
            _ = try await store.setRole(.manager, userID: userID, by: boss, managed: .none, now: Date())
            _ = try await store.setRole(.manager, userID: userID, by: boss, managed: .none, now: Date())
            let team = try await store.createTeam(name: "North", by: .cli(environmentID: "dev"), now: Date())
            _ = try await store.addMember(userID: userID, teamID: team.id, by: boss, managed: .none, now: Date())
            _ = try await store.renameTeam(id: team.id, to: "South", by: .cli(environmentID: "dev"), now: Date())
            _ = try await store.setDisabled(true, userID: userID, by: boss, now: Date())
            _ = try await store.setDisabled(true, userID: userID, by: boss, now: Date())
            _ = try await store.setDisabled(false, userID: userID, by: .cli(environmentID: "dev"), now: Date())
            try await store.deleteTeam(id: team.id, by: .cli(environmentID: "dev"), now: Date())

            let entries = try await Self.events(store, after: start)
            try #require(
                entries.map(\.event.type) == [
                    .userCreated, .userUpdated, .teamCreated, .userUpdated, .teamRenamed, .userDisabled, .deviceRevoked,
                    .userEnabled, .teamDeleted,
                ])
            #expect(entries.map(\.event.actor) == ["device", "admin", "cli", "admin", "cli", "admin", "admin", "cli", "cli"])
            #expect(entries.map(\.position) == entries.map(\.position).sorted() && Set(entries.map(\.position)).count == entries.count)
            #expect(entries.allSatisfy { $0.environmentID == "dev" })
            #expect(entries[0].event.user == .init(id: userID, email: "w@example.com"))
            #expect(entries[1].event.before == ["role": "worker"] && entries[1].event.after == ["role": "manager"])
            #expect(entries[3].event.team?.id == team.id && entries[3].event.after == ["team_member": "true"])
            #expect(entries[4].event.before == ["name": "North"] && entries[4].event.after == ["name": "South"])
            #expect(entries[6].event.device?.id == session.deviceID && entries[6].event.reason == "user_disabled")
            #expect(try await store.lifecycleFeedPosition() >= entries.last?.position ?? .max)
            // A follower that continues after a position gets the rest only.
            #expect(
                try await Self.events(store, after: entries[4].position).map(\.event.type) == [
                    .userDisabled, .deviceRevoked, .userEnabled, .teamDeleted,
                ])
        }
    }

    @Test(arguments: StoreKind.allCases) func anotherEnvironmentsEventsAreNotListed(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            _ = try await store.ensureUser(email: "x@other.test", environmentID: "other", now: Date())
            let created = try await Self.events(store, environmentID: "other")
            #expect(created.map(\.event.type) == [.userCreated] && created.first?.event.actor == "cli")
            #expect(try await Self.events(store).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRolledBackChangeLeavesNoEvent(_ kind: StoreKind) async throws {
        struct Abort: Error {}
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "w@example.com", environmentID: "dev", now: Date())
            let entry = AuditRecord.roleChanged(actor: "cli", userID: user.id, from: .worker, to: .admin)
            await #expect(throws: Abort.self) {
                switch store {
                case let sqlite as SQLiteStore:
                    try await sqlite.write { db in
                        try SQLiteStore.audit(db, environmentID: "dev", entry, now: Date())
                        throw Abort()
                    }
                case let postgres as PostgresStore:
                    try await postgres.write { connection in
                        try await PostgresStore.audit(connection, environmentID: "dev", entry, now: Date())
                        throw Abort()
                    }
                default:
                    Issue.record("unknown store")
                }
            }
            _ = try await store.setRole(.manager, userID: user.id, by: .cli(environmentID: "dev"), managed: .none, now: Date())
            let entries = try await Self.events(store)
            #expect(entries.map(\.event.type) == [.userCreated, .userUpdated])
            #expect(entries.last?.event.after == ["role": "manager"])
        }
    }

    /// On PostgreSQL the signal comes from the listener of a running server (see the e2e suite).
    @Test func aLongPollIsWokenByAChange() async throws {
        try await StoreTestEnvironment.with(store: .sqlite) { environment in
            let store = environment.store
            let generation = store.lifecycleFeed.generation
            // Woken by the change, before its 60 s wait would have run out.
            let woken = try await finishesBeforeTimeout(.seconds(60)) {
                async let waited: Void = store.lifecycleFeed.wait(atMost: .seconds(60), after: generation)
                _ = try await store.ensureUser(email: "w@example.com", environmentID: "dev", now: Date())
                await waited
            }
            #expect(woken)
        }
    }

    @Test(arguments: StoreKind.allCases) func oldEventsArePurged(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            _ = try await store.ensureUser(email: "old@example.com", environmentID: "dev", now: Date(timeIntervalSinceNow: -40 * 24 * 3600))
            _ = try await store.ensureUser(email: "new@example.com", environmentID: "dev", now: Date())
            _ = try await Self.events(store)
            try await store.purgeLifecycleEvents(before: Date(timeIntervalSinceNow: -LifecycleEventRules.retention))
            #expect(try await Self.events(store).compactMap(\.event.user?.email) == ["new@example.com"])
        }
    }
}
