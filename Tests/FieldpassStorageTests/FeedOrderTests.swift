import Foundation
import PostgresNIO
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// Feeds are followed with a cursor ("everything after the highest position seen"). With
/// PostgreSQL, concurrent transactions may try to commit in another order than they took
/// their positions; these tests make that happen on purpose, with a reader following the
/// feed all along, and check that it sees every entry once.
@Suite("Feed order under concurrent commits", .hangGuard)
struct FeedOrderTests {
    @Test func anEventCommittedLateIsNotSkipped() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let (early, _) = try await environment.register(email: "early@example.com")
            let (late, _) = try await environment.register(email: "late@example.com")
            let start = try await store.latestEventRowID()
            let follower = Follower { after in try await store.events(afterRowID: after, limit: 100).map { ($0.rowID, $0.sessionID) } }
            let seen = try await follower.follow(from: start, until: 2) {
                try await Self.commitOutOfOrder(store) { connection in
                    try await failSignIn(of: early.id, on: connection)
                } second: {
                    _ = try await store.failLogin(
                        sessionID: late.id, error: "access_denied", description: "no", audited: false, now: Date())
                }
            }
            #expect(seen.map(\.1) == [early.id, late.id])
            #expect(seen.map(\.0) == [start + 1, start + 2])
        }
    }

    @Test func aRealmCommittedLateIsNotSkipped() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let start = try await store.realmFeedPosition()
            let follower = Follower { after in
                try await store.realmFeed(environmentID: "dev", after: after, initialized: nil, limit: 100).map { ($0.feedSeq, $0.email) }
            }
            let seen = try await follower.follow(from: start, until: 2) {
                try await Self.commitOutOfOrder(store) { connection in
                    _ = try await PostgresStore.findOrCreateUser(connection, email: "early@example.com", environmentID: "dev", now: 0)
                } second: {
                    _ = try await store.ensureUser(email: "late@example.com", environmentID: "dev", now: Date())
                }
            }
            #expect(seen.map(\.1) == ["early@example.com", "late@example.com"])
        }
    }

    /// A hub's read gives the events placed so far without placing more (their writers'
    /// publishing does); a read that finds none placed places them itself, so an event whose
    /// writer never published is still read, at a later look (once no older transaction of
    /// the database is open: the registrations' own feeds are placed in the background).
    @Test func aReadPlacesOnlyWhenItFindsNothingPlaced() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let (placedFirst, _) = try await environment.register(email: "placed@example.com")
            let (leftUnplaced, _) = try await environment.register(email: "unplaced@example.com")
            let start = try await store.latestEventRowID()
            // Both stored and committed without publishing, as if their instance stopped;
            // the first is then placed by a reader that waits for it.
            try await store.write { connection in try await failSignIn(of: placedFirst.id, on: connection) }
            try await store.placeCommitted(PostgresFeed.sessionEvents)
            try await store.write { connection in try await failSignIn(of: leftUnplaced.id, on: connection) }
            // A read of what is placed places nothing, however often it runs.
            for _ in 0..<2 {
                #expect(try await store.placedEvents(afterRowID: start, limit: 10).map(\.sessionID) == [placedFirst.id])
            }
            let first = try await store.events(afterRowID: start, limit: 10)
            let follower = Follower { after in try await store.events(afterRowID: after, limit: 10).map { ($0.rowID, $0.sessionID) } }
            let later = try await follower.follow(from: first.last?.rowID ?? start, until: 1) {}
            #expect(first.map(\.sessionID) == [placedFirst.id])
            #expect(later.map(\.1) == [leftUnplaced.id])
            #expect(first.map(\.rowID) + later.map(\.0) == [start + 1, start + 2])
        }
    }

    /// Placing commits without waiting for the WAL flush, so a crash may lose a placing that
    /// a reader already saw. The first placing after recovery must then give the same rows
    /// the same positions: here the lost placing is undone as recovery would leave it.
    @Test func aPlacingLostInACrashIsGivenAgainIdentically() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let start = try await store.latestEventRowID()
            for email in ["a@example.com", "b@example.com", "c@example.com"] {
                let (session, _) = try await environment.register(email: email)
                _ = try await store.failLogin(sessionID: session.id, error: "access_denied", description: "no", audited: false, now: Date())
            }
            // Read until all three are placed: one read may leave a row for the next (Follower).
            let follower = Follower { after in
                try await store.events(afterRowID: after, limit: 10).map { ($0.rowID, "\($0.rowID) \($0.sessionID) \($0.seq)") }
            }
            let positions = { try await follower.follow(from: start, until: 3) {}.map(\.1) }
            let placed = try await positions()
            #expect(placed.count == 3)
            try await store.write { connection in
                try await connection.execute("UPDATE session_events SET id = NULL WHERE id > \(start)")
                try await connection.execute("UPDATE counters SET value = \(start) WHERE name = 'session_events'")
            }
            #expect(try await positions() == placed)
        }
    }

    /// Opens a transaction that runs `first` and stays open, then runs `second` (its own
    /// transaction) and lets it try to commit; only then commits the first. `second` must
    /// not be able to commit before the first one.
    static func commitOutOfOrder(
        _ store: PostgresStore,
        _ first: @escaping @Sendable (PostgresConnection) async throws -> Void,
        second: @escaping @Sendable () async throws -> Void
    ) async throws {
        let secondTask = try await store.withTransactionOpen(running: first) {
            let secondTask = Task { try await second() }
            // Give the second transaction every chance to commit first.
            try await Task.sleep(for: .milliseconds(300))
            return secondTask
        }
        try await secondTask.value
    }
}

/// Follows a feed with a cursor, as the event hub and an integration backend do.
struct Follower<Entry: Sendable>: Sendable {
    let read: @Sendable (Int64) async throws -> [(Int64, Entry)]

    init(_ read: @escaping @Sendable (Int64) async throws -> [(Int64, Entry)]) {
        self.read = read
    }

    /// Runs `work` while reading every 10 ms from `start` on; returns every entry read once
    /// `count` were seen after `work` ended.
    func follow(from start: Int64, until count: Int, while work: @Sendable () async throws -> Void) async throws -> [(Int64, Entry)] {
        let reader = Task {
            var cursor = start
            var seen: [(Int64, Entry)] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while seen.count < count && ContinuousClock.now < deadline {
                let page = try await read(cursor)
                seen += page
                cursor = page.last?.0 ?? cursor
                try await Task.sleep(for: .milliseconds(10))
            }
            return seen
        }
        try await work()
        return try await reader.value
    }
}

/// A session's sign-in failed, its event stored in `connection`'s transaction, which the
/// caller keeps open: an event committed late.
func failSignIn(of sessionID: String, on connection: PostgresConnection) async throws {
    let failure = LoginFailure(error: "access_denied", description: "no", audited: false)
    try await PostgresStore.apply(SessionRules.failing(sessionID: sessionID, failure, now: 0), connection)
}
