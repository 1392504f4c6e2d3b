import PostgresNIO
import Testing
@testable import FieldpassStorage
import StoreTestSupport

/// A feed's placing asks whether anything is unplaced through the feed's `*_unplaced` index,
/// so a table of placed rows is never read whole, whatever the planner believes of it.
@Suite("Feed placing checks on PostgreSQL", .timeLimit(.minutes(1)))
struct FeedPlacingCheckTests {
    @Test func aPlacingWithNothingToPlaceReadsNoTableWhole() async throws {
        try await StoreTestEnvironment.with(store: .postgres, maxConnections: 1) { environment in
            let store = try #require(environment.store as? PostgresStore)
            // The pool's one connection plans the function's statements at its first call, on
            // an empty table, and keeps those plans while the table grows.
            _ = try await Self.placeLifecycleEvents(store)
            try await store.read { connection in
                try await connection.execute(
                    """
                    INSERT INTO lifecycle_events (environment_id, body, at, feed_seq)
                    SELECT 'dev', '{}', 0, position FROM generate_series(1, 20000) AS position
                    """
                )
            }
            let wholeTableReads = try await Self.placeLifecycleEvents(store)
            #expect(wholeTableReads == 0)
        }
    }

    /// Places the lifecycle feed, which has nothing unplaced; answers how often that read the
    /// table whole.
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
