import Foundation
import Logging
import PostgresNIO
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// The PostgreSQL store runs its statements prepared: parsed and planned once per
/// connection, prepared again on the connection that replaces one PostgreSQL ended.
@Suite("Prepared statements on PostgreSQL", .hangGuard)
struct PreparedStatementTests {
    /// How often the statement that reads a session's events was prepared on the pool's one
    /// connection (rows of `pg_prepared_statements`), and how often it ran there.
    private static func eventReads(_ store: PostgresStore) async throws -> (prepared: Int, runs: Int) {
        let rows = try await store.read { connection in
            try await connection.rows(
                """
                SELECT generic_plans + custom_plans AS runs FROM pg_prepared_statements
                WHERE name LIKE 'fieldpass\\_%' AND statement LIKE '%FROM session_events%WHERE session_id = $1 AND seq > $2%'
                  AND statement NOT LIKE '%pg_prepared_statements%'
                """
            )
        }
        return (rows.count, try rows.reduce(0) { $0 + Int(try $1.get("runs", as: Int64.self)) })
    }

    @Test func aHotStatementIsPreparedOncePerConnectionAndRunByNameAfterwards() async throws {
        try await StoreTestEnvironment.with(store: .postgres, maxConnections: 1) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let (session, _) = try await environment.register()
            for _ in 0..<10 { _ = try await store.events(sessionID: session.id, after: 0) }
            let reads = try await Self.eventReads(store)
            #expect(reads.prepared == 1 && reads.runs == 10, "\(reads)")
        }
    }

    @Test func aTerminatedBackendIsReplacedAndItsStatementsPreparedAgain() async throws {
        // A read sent on the terminated connection is answered only at the deadline, so the
        // test's long one would outlast the suite's time limit; 15 s still leaves every other
        // read of the test room on a machine busy with another run beside it (5 s did not).
        try await StoreTestEnvironment.with(store: .postgres, maxConnections: 1, timeout: 15) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let (session, _) = try await environment.register()
            for _ in 0..<3 { _ = try await store.events(sessionID: session.id, after: 0) }

            let settings = try #require(environment.storage.postgres)
            let terminated = try await PostgresEndpoint(settings: settings).withConnection(logger: Logger(label: "test")) { admin in
                try await admin.values(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE datname = current_database() AND pid <> pg_backend_pid()
                    """,
                    as: Bool.self)
            }
            #expect(terminated.contains(true), "no backend of the store was terminated")

            // The store is back once one read works; from then on none fails. A store that
            // never comes back is stopped by the suite's time limit, not by a clock of its own.
            while (try? await store.events(sessionID: session.id, after: 0)) == nil {
                try await Task.sleep(for: .milliseconds(100))
            }
            for _ in 0..<10 {
                #expect(try await store.events(sessionID: session.id, after: 0).map(\.seq) == [])
            }
            let reads = try await Self.eventReads(store)
            #expect(reads.prepared == 1 && reads.runs == 11, "\(reads)")
        }
    }
}
