import Foundation
import Logging
import PostgresNIO
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// Registrations on several instances must not commit one at a time, and the realm feed must
/// still list every one of them once, in order.
@Suite("Concurrent commits on PostgreSQL", .hangGuard)
struct ConcurrentCommitTests {
    /// While a transaction that created a realm stays open, 200 registrations over two
    /// instances' stores must all commit: none may wait for another feed writer's commit.
    /// Then the integration feed, followed with its cursor, lists all 201 realms once, the
    /// open transaction's first, at consecutive positions.
    @Test func twoHundredRegistrationsOverTwoInstancesCommitWhileAnotherFeedWriterIsOpen() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let first = try #require(environment.store as? PostgresStore)
            let opened = try StoreFactory.open(
                environment.storage, realmPrefixes: environment.realmPrefixes, logger: Logger(label: "test")
            )
            try await opened.use { other in
                let second = try #require(other as? PostgresStore)
                let start = try await first.realmFeedPosition()
                let (began, beganSignal) = AsyncStream.makeStream(of: Void.self)
                let (release, releaseSignal) = AsyncStream.makeStream(of: Void.self)
                // Answers whether it was released while still open (rather than giving up). It
                // is another instance's slow transaction, on a connection of its own: the
                // store's deadline is for its own operations, not for how long this one stays open.
                let settings = try #require(environment.storage.postgres)
                let feedWriter = Task {
                    try await PostgresEndpoint(settings: settings).withConnection(logger: Logger(label: "test")) { connection in
                        try await connection.execute("BEGIN")
                        _ = try await PostgresStore.findOrCreateUser(connection, email: "open@example.com", environmentID: "dev", now: 0)
                        beganSignal.yield()
                        let released = await Self.arrives(release, within: .seconds(20))
                        try await connection.execute("COMMIT")
                        return released
                    }
                }
                for await _ in began { break }
                let emails = (0..<200).map { "worker\($0)@example.com" }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, email) in emails.enumerated() {
                        group.addTask { _ = try await environment.register(email: email, on: index.isMultiple(of: 2) ? first : second) }
                    }
                    try await group.waitForAll()
                }
                releaseSignal.yield()
                #expect(try await feedWriter.value, "registrations waited for an open transaction's commit")

                let listed = try await Self.followFeed(environment)
                #expect(listed.first == "open@example.com")
                #expect(listed.count == 201)
                #expect(Set(listed) == Set(emails + ["open@example.com"]))
                let positions = try await second.realmFeed(environmentID: "dev", after: start, initialized: nil, limit: 1000).map(\.feedSeq)
                #expect(positions == Array((start + 1)...(start + 201)))
            }
        }
    }

    /// Whether `signal` yields before `timeout` passes.
    private static func arrives(_ signal: AsyncStream<Void>, within timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in signal { return true }
                return false
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            defer { group.cancelAll() }
            return await group.next() ?? false
        }
    }

    /// The emails of every realm in the feed, page after page from a cursor, as the
    /// integration API reads it for a backend.
    private static func followFeed(_ environment: StoreTestEnvironment) async throws -> [String] {
        var emails: [String] = []
        var cursor: Int64 = 0
        while true {
            let page = try await environment.store.realmFeed(environmentID: "dev", after: cursor, initialized: nil, limit: 50)
            guard let last = page.last else { return emails }
            emails += page.map(\.email)
            cursor = last.feedSeq
        }
    }
}
