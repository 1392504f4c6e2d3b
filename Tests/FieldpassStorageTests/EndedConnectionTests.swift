import Logging
import PostgresNIO
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// A connection that PostgreSQL ends under a request (a restart, a failover,
/// `pg_terminate_backend`) costs that request an answer at its deadline, never a wait forever.
@Suite("A connection PostgreSQL ends", .hangGuard)
struct EndedConnectionTests {
    /// PostgresNIO sends a statement to its channel without a write promise: once NIO has
    /// closed the channel and removed its handlers, the statement is dropped and its caller's
    /// promise is never fulfilled. The pool can hand out a connection in that state when the
    /// server ends it just before; here the statement is sent after the close, every time.
    @Test func aStatementLostOnAClosedConnectionIsAnsweredUnavailableAtTheDeadline() async throws {
        // The production deadline: this test is about answering at it.
        try await StoreTestEnvironment.with(store: .postgres, maxConnections: 1, timeout: 5) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let settings = try #require(environment.storage.postgres)
            // Answered at the 5 s deadline, long before a 30 s timer that stands for "forever".
            let answered = try await finishesBeforeTimeout(.seconds(30)) {
                await #expect(throws: StoreUnavailable.self) {
                    try await store.read { connection in
                        let backend = try #require(await connection.value("SELECT pg_backend_pid()", as: Int32.self))
                        try await PostgresEndpoint(settings: settings).withConnection(logger: Logger(label: "test")) { admin in
                            _ = try await admin.values("SELECT pg_terminate_backend(\(backend))", as: Bool.self)
                        }
                        try await connection.closeFuture.get()
                        return try await connection.values("SELECT 1", as: Int32.self)
                    }
                }
            }
            #expect(answered)

            // The pool has replaced the connection: the store answers again.
            let (session, _) = try await environment.register()
            #expect(try await store.events(sessionID: session.id, after: 0).map(\.seq) == [])
        }
    }
}
