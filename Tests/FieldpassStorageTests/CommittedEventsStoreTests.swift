import Foundation
import PostgresNIO
import Synchronization
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// The session events a process commits reach its own readers from the committing task
/// (``CommittedEvents``), whatever holds back the feed that carries them to the other
/// instances.
@Suite("Events handed over at commit", .hangGuard)
struct CommittedEventsStoreTests {
    /// What a store handed its own readers, in order.
    final class Received: Sendable {
        private let events = Mutex<[StoredEvent]>([])
        var all: [StoredEvent] { events.withLock { $0 } }

        init(from store: some StoreChanges) {
            store.committedEvents.receive { [self] committed in self.events.withLock { $0 += committed } }
        }
    }

    @Test(arguments: StoreKind.allCases) func aCommitHandsItsEventsOverBeforeItAnswers(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (session, _) = try await environment.register(email: "a@example.com")
            let received = Received(from: store)
            let stored = try await store.failLogin(
                sessionID: session.id, error: "access_denied", description: "no", audited: false, now: Date())
            #expect(!stored.isEmpty)
            #expect(received.all.map(\.sessionID) == stored.map(\.sessionID) && received.all.map(\.seq) == stored.map(\.seq))
        }
    }

    /// An older transaction still open holds back the placing of every later event of its
    /// database, and so the feed; the events of a commit are handed over at once all the same.
    @Test func anEventIsHandedOverWhileAnOlderTransactionHoldsBackTheFeed() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let (early, _) = try await environment.register(email: "early@example.com")
            let (late, _) = try await environment.register(email: "late@example.com")
            let start = try await store.latestEventRowID()
            let received = Received(from: store)
            try await store.withTransactionOpen { connection in
                try await failSignIn(of: early.id, on: connection)
            } during: {
                _ = try await store.failLogin(sessionID: late.id, error: "access_denied", description: "no", audited: false, now: Date())
                #expect(received.all.map(\.sessionID) == [late.id])
                #expect(try await store.events(afterRowID: start, limit: 10).isEmpty)
            }
        }
    }

    /// A transaction left open in another database of the same cluster holds back neither
    /// the hand-over nor the placing: the event is in the feed soon after its commit.
    @Test func aTransactionOpenInAnotherDatabaseHoldsBackNothing() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { other in
            let elsewhere = try #require(other.store as? PostgresStore)
            try await StoreTestEnvironment.with(store: .postgres) { environment in
                let store = try #require(environment.store as? PostgresStore)
                let (session, _) = try await environment.register(email: "a@example.com")
                let start = try await store.latestEventRowID()
                let received = Received(from: store)
                try await elsewhere.withTransactionOpen { connection in
                    _ = try await connection.query("SELECT pg_current_xact_id()", logger: PostgresStore.queryLogger)
                } during: {
                    let follower = Follower { after in
                        try await store.events(afterRowID: after, limit: 10).map { ($0.rowID, $0.sessionID) }
                    }
                    let placed = try await follower.follow(from: start, until: 1) {
                        _ = try await store.failLogin(
                            sessionID: session.id, error: "access_denied", description: "no", audited: false, now: Date())
                        #expect(received.all.map(\.sessionID) == [session.id])
                    }
                    #expect(placed.map(\.1) == [session.id])
                }
            }
        }
    }
}
