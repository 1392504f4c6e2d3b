import Foundation
import PostgresNIO
import Synchronization
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// A shared PostgreSQL transaction runs its changes without savepoints, and runs again in
/// savepoints when one of them fails (``PostgresStore/commit(_:)``): from outside, each
/// change must still be stored whole or not at all, and answered with its own outcome.
@Suite("Shared transactions without savepoints on PostgreSQL", .hangGuard)
struct PostgresBatchSavepointTests {
    struct Refused: Error {}

    /// What each change was answered, by email, and how often each body ran.
    final class Outcomes: Sendable {
        private let answers = Mutex<[String: String]>([:])
        private let runs = Mutex<[String: Int]>([:])
        var answered: [String: String] { answers.withLock { $0 } }
        var ran: [String: Int] { runs.withLock { $0 } }

        /// A change that creates the person `email`, then fails as `failure` says.
        func change(creating email: String, failure: Failure = .none) -> PostgresChange {
            PostgresChange(
                publishing: nil,
                { connection in
                    self.runs.withLock { $0[email, default: 0] += 1 }
                    let person = try await PostgresStore.findOrCreateUser(connection, email: email, environmentID: "dev", now: 0)
                    switch failure {
                    case .none: break
                    case .swift: throw Refused()
                    case .database: try await connection.execute("SELECT 1 / 0")
                    }
                    return person.id
                }
            ) { result in
                let answer: String
                switch result {
                case .success: answer = "stored"
                case .failure(let error as PSQLError): answer = "database error \(error.serverInfo?[.sqlState] ?? "")"
                case .failure(let error): answer = "\(type(of: error))"
                }
                self.answers.withLock { $0[email] = answer }
            }
        }
    }

    enum Failure { case none, swift, database }

    static func stored(_ emails: [String], in store: PostgresStore) async throws -> Set<String> {
        Set(try await store.users(environmentID: "dev").map(\.email)).intersection(emails)
    }

    @Test func aBatchWithFailingChangesRunsAgainInSavepointsAndTheNextStartsInThem() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let outcomes = Outcomes()
            let emails = ["a@example.com", "b@example.com", "c@example.com", "d@example.com"]
            let batch = [
                outcomes.change(creating: emails[0]), outcomes.change(creating: emails[1], failure: .swift),
                outcomes.change(creating: emails[2]), outcomes.change(creating: emails[3], failure: .database),
            ]
            for answer in try await store.commit(batch) { answer() }
            #expect(
                outcomes.answered == [
                    emails[0]: "stored", emails[1]: "Refused", emails[2]: "stored", emails[3]: "database error 22012",
                ])
            #expect(try await Self.stored(emails, in: store) == [emails[0], emails[2]])
            // Run without savepoints up to the first failure, then all again in savepoints.
            #expect(outcomes.ran == [emails[0]: 2, emails[1]: 2, emails[2]: 1, emails[3]: 1])
            #expect(store.savepoints.startWithSavepoints)

            // After a failure, the next batch starts in savepoints: a failing change runs once.
            let next = ["e@example.com", "f@example.com", "g@example.com"]
            let second = Outcomes()
            let nextBatch = [
                second.change(creating: next[0]), second.change(creating: next[1], failure: .swift), second.change(creating: next[2]),
            ]
            for answer in try await store.commit(nextBatch) { answer() }
            #expect(second.answered == [next[0]: "stored", next[1]: "Refused", next[2]: "stored"])
            #expect(second.ran == [next[0]: 1, next[1]: 1, next[2]: 1])
            #expect(try await Self.stored(next, in: store) == [next[0], next[2]])
            #expect(store.savepoints.startWithSavepoints)

            // A batch in savepoints without a failure drops them again for the next one.
            let clean = ["h@example.com", "i@example.com"]
            for answer in try await store.commit(clean.map { second.change(creating: $0) }) { answer() }
            #expect(!store.savepoints.startWithSavepoints)
            #expect(try await Self.stored(clean, in: store) == Set(clean))
        }
    }

    /// A batch of one is its own savepoint: its failure rolls the transaction back and is
    /// thrown, for the group commit to answer its caller with, after one run.
    @Test func aFailingChangeAloneIsRolledBackAfterOneRun() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let store = try #require(environment.store as? PostgresStore)
            let outcomes = Outcomes()
            await #expect(throws: Refused.self) {
                _ = try await store.commit([outcomes.change(creating: "alone@example.com", failure: .swift)])
            }
            #expect(outcomes.ran == ["alone@example.com": 1])
            #expect(try await Self.stored(["alone@example.com"], in: store).isEmpty)
            #expect(!store.savepoints.startWithSavepoints)
        }
    }
}
