import Foundation
import PostgresNIO
import Testing
@testable import FieldpassStorage
import StoreTestSupport

/// A feed's placing asks whether anything is unplaced through the feed's `*_unplaced` index,
/// so a table of placed rows is not read whole, even by a connection that planned the
/// check while the table was empty.
@Suite("Feed placing checks on PostgreSQL", .hangGuard)
struct FeedPlacingCheckTests {
    @Test func aPlacingWithNothingToPlaceReadsNoTableWhole() async throws {
        try await StoreTestEnvironment.with(store: .postgres, maxConnections: 1) { environment in
            let store = try #require(environment.store as? PostgresStore)
            // Autovacuum is kept off the table: an analysis in the middle would replan the
            // function and hide the plan this test is about.
            try await store.read { connection in
                try await connection.execute("ALTER TABLE lifecycle_events SET (autovacuum_enabled = off)")
            }
            // The pool's one connection plans the function's statements at its first call, on
            // an empty table, and keeps those plans until the table is analyzed.
            _ = try await Self.placeLifecycleEvents(store)
            try await store.read { connection in
                try await connection.execute(
                    """
                    INSERT INTO lifecycle_events (environment_id, body, at, feed_seq)
                    SELECT 'dev', '{}', 0, position FROM generate_series(1, 20000) AS position
                    """
                )
            }
            let sequentialScans = try await Self.placeLifecycleEvents(store)
            #expect(sequentialScans == 0)
        }
    }

    /// A backlog of unplaced rows (a transaction left open a few seconds holds every later
    /// row back) is placed with work that grows with the backlog, not with its square, also
    /// where the table's statistics were taken with nothing unplaced and expect a handful
    /// (``PostgresFeed/PlacedRowLookup``).
    @Test func aBacklogIsPlacedWithWorkInProportionToIt() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let backlog = 2000
            try await store.read { connection in
                try await connection.execute("ALTER TABLE lifecycle_events SET (autovacuum_enabled = off)")
            }
            try await store.read { connection in
                try await connection.execute(
                    """
                    INSERT INTO lifecycle_events (environment_id, body, at, feed_seq)
                    SELECT 'dev', '{}', 0, -position FROM generate_series(1, 2000) AS position
                    """
                )
            }
            try await store.read { connection in try await connection.execute("ANALYZE lifecycle_events") }
            try await store.read { connection in
                try await connection.execute(
                    """
                    INSERT INTO lifecycle_events (environment_id, body, at, writer_xid, written)
                    SELECT 'dev', '{}', 0, \(unescaped: PostgresFeed.unplacedMark) FROM generate_series(1, \(backlog))
                    """
                )
            }
            // A transaction may hold the backlog back, rightly, as one that could still commit an
            // earlier row (``PostgresFeed/placement(findingRowsBy:)``): the store's heartbeat,
            // whose `NOTIFY` takes a transaction id just before its commit waits for the WAL, or
            // one of another test's database that ended just before the placement read
            // `pg_stat_activity`. So place again, as a reader would, until all are placed, and
            // count the work of every placing.
            let placement = PostgresQuery(
                unsafeSQL: "EXPLAIN (ANALYZE, FORMAT JSON) " + PostgresFeed.lifecycleEvents.placement(findingRowsBy: .key).sql)
            var removedByJoins = 0
            var placed: [PostgresRandomAccessRow] = []
            let deadline = ContinuousClock.now + .seconds(10)
            repeat {
                let plan = try await store.read { connection in try await connection.value(placement, as: String.self) }
                removedByJoins += try Self.rowsRemovedByJoinFilters(in: try #require(plan))
                placed = try await store.read { connection in
                    try await connection.rows(
                        "SELECT count(*) AS rows, min(feed_seq) AS first, max(feed_seq) AS last FROM lifecycle_events WHERE feed_seq > 0"
                    )
                }
            } while try placed.first?.get("rows", as: Int64.self) != Int64(backlog) && ContinuousClock.now < deadline
            #expect(removedByJoins <= backlog)
            let row = try #require(placed.first)
            #expect(try row.get("rows", as: Int64.self) == Int64(backlog))
            #expect(try row.get("first", as: Int64.self) == 1)
            #expect(try row.get("last", as: Int64.self) == Int64(backlog))
        }
    }

    /// A placing tells a reader whether rows up to a writer's still wait: yes while an older
    /// transaction that may yet commit an earlier row is open, no once it has ended and all
    /// were placed.
    @Test func aPlacingSaysWhetherAWritersRowsStillWaitForAnOlderTransaction() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let (newer, waitingWhileOlderIsOpen) = try await store.withTransactionOpen(running: { connection in
                _ = try await Self.storeUnplacedEvent(connection)
            }) {
                let newer = try await store.write { connection in try await Self.storeUnplacedEvent(connection) }
                return (newer, try await Self.placeLifecycleEvents(store, upTo: newer))
            }
            // Once it ended, the rows wait at most for other transactions of the database that
            // were open at the same moment (background work, or one `pg_stat_activity` did not
            // list yet): a reader asks again until they do not (``PostgresStore/placeCommitted(_:)``).
            var waitingAfterwards = try await Self.placeLifecycleEvents(store, upTo: newer)
            let deadline = ContinuousClock.now + .seconds(10)
            while waitingAfterwards == true, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(10))
                waitingAfterwards = try await Self.placeLifecycleEvents(store, upTo: newer)
            }
            #expect(waitingWhileOlderIsOpen == true)
            #expect(waitingAfterwards == false)
            let unplaced = try await store.read { connection in
                try await connection.value("SELECT count(*) FROM lifecycle_events WHERE feed_seq IS NULL", as: Int64.self)
            }
            #expect(unplaced == 0)
        }
    }

    /// The rows that `EXPLAIN (ANALYZE, FORMAT JSON)`'s plan compared in its joins and threw
    /// away: the work a nested loop over two sets did beyond the rows it kept.
    private static func rowsRemovedByJoinFilters(in plan: String) throws -> Int {
        func removed(_ node: [String: Any]) -> Int {
            let own = node["Rows Removed by Join Filter"] as? Int ?? 0
            let children = node["Plans"] as? [[String: Any]] ?? []
            return own + children.map(removed).reduce(0, +)
        }
        let statements = try #require(try JSONSerialization.jsonObject(with: Data(plan.utf8)) as? [[String: Any]])
        return statements.compactMap { $0["Plan"] as? [String: Any] }.map(removed).reduce(0, +)
    }

    /// Places the lifecycle feed; answers whether the rows up to `writer`'s still wait.
    private static func placeLifecycleEvents(_ store: PostgresStore, upTo writer: String) async throws -> Bool? {
        try await store.read { connection in
            try await connection.value(PostgresFeed.lifecycleEvents.place(upTo: writer), as: Bool.self)
        }
    }

    /// Stores one lifecycle event unplaced, as a change's audit does; answers its writer.
    private static func storeUnplacedEvent(_ connection: PostgresConnection) async throws -> String {
        let writer = try await connection.value(
            """
            INSERT INTO lifecycle_events (environment_id, body, at, writer_xid, written)
            VALUES ('dev', '{}', 0, \(unescaped: PostgresFeed.unplacedMark)) RETURNING writer_xid::text
            """,
            as: String.self
        )
        return try #require(writer)
    }

    /// Places the lifecycle feed, which has nothing unplaced; answers how many sequential scans
    /// of the table that started (with nothing unplaced, each reads the table whole).
    private static func placeLifecycleEvents(_ store: PostgresStore) async throws -> Int64? {
        try await store.write { connection in
            let waiting = try await connection.value("SELECT fieldpass_place_lifecycle_events(NULL)", as: Bool.self)
            #expect(waiting == false)
            return try await connection.value(
                "SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relname = 'lifecycle_events'", as: Int64.self
            )
        }
    }
}
