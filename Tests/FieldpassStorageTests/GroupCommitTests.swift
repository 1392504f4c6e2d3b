import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// Registrations that arrive together share write transactions; from outside each one must
/// still look like its own transaction: stored when answered, whole or not at all.
@Suite("Group commit", .hangGuard)
struct GroupCommitTests {
    @Test(arguments: StoreKind.allCases) func concurrentRegistrationsAreAllStoredOnceInFeedOrder(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let start = try await store.realmFeedPosition()
            let count = 500
            let sessions = try await withThrowingTaskGroup(of: (OnboardingSession, String).self) { group in
                for index in 0..<count {
                    group.addTask { try await environment.register(email: "worker\(index)@example.com") }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(sessions.count == count)
            // Stored before answered: every session and its state are usable at once.
            for (session, state) in sessions {
                #expect(try await store.session(id: session.id)?.status == .pending)
                #expect(try await store.consumeState(state, now: Date())?.id == session.id)
            }
            let feed = try await store.realmFeed(environmentID: "dev", after: start, initialized: nil, limit: 1000)
            #expect(feed.map(\.feedSeq) == Array((start + 1)...(start + Int64(count))))
            #expect(Set(feed.map(\.email)) == Set((0..<count).map { "worker\($0)@example.com" }))
        }
    }

    /// A newcomer registering from several requests at once, some sharing a transaction, some
    /// waiting on another's: one person and one realm, and every registration its own session.
    @Test(arguments: StoreKind.allCases) func aNewcomerRegisteringManyTimesAtOnceIsCreatedOnce(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let start = try await store.realmFeedPosition()
            let count = 40
            let registered = try await withThrowingTaskGroup(of: (Int, OnboardingSession).self) { group in
                for index in 0..<count {
                    let installation = index.isMultiple(of: 2) ? nil : "tablet"
                    group.addTask { (index, try await environment.register(email: "crowd@example.com", installID: installation).0) }
                }
                return try await group.reduce(into: [Int: OnboardingSession]()) { $0[$1.0] = $1.1 }
            }
            let sessions = (0..<count).compactMap { registered[$0] }
            #expect(Set(sessions.map(\.id)).count == count)
            #expect(Set(sessions.map(\.userID)).count == 1)
            for session in sessions { #expect(try await store.session(id: session.id)?.userID == sessions[0].userID) }
            #expect(try await store.users(environmentID: "dev").filter { $0.email == "crowd@example.com" }.count == 1)
            let feed = try await store.realmFeed(environmentID: "dev", after: start, initialized: nil, limit: 100)
            #expect(feed.map(\.email) == ["crowd@example.com"])
            // The installation registered again is the one live device each time.
            let tablets = Set(sessions.enumerated().filter { !$0.offset.isMultiple(of: 2) }.map(\.element.deviceID))
            let phones = Set(sessions.enumerated().filter { $0.offset.isMultiple(of: 2) }.map(\.element.deviceID))
            #expect(tablets.count == 1)
            #expect(phones.count == count / 2 && phones.isDisjoint(with: tablets))
        }
    }

    @Test(arguments: StoreKind.allCases) func aFailingRegistrationFailsAloneAndLeavesNothing(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let taken = try await environment.register(email: "first@example.com").0.id
            let start = try await store.realmFeedPosition()
            // One registration reuses a stored session id: its insert fails inside the batch.
            let outcomes = await withTaskGroup(of: (String, Bool).self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let email = "batch\(index)@example.com"
                        let stored = try? await environment.register(email: email, sessionID: index == 25 ? taken : nil)
                        return (email, stored != nil)
                    }
                }
                return await group.reduce(into: [String: Bool]()) { $0[$1.0] = $1.1 }
            }
            #expect(outcomes.filter { !$0.value }.map(\.key) == ["batch25@example.com"])
            let feed = try await store.realmFeed(environmentID: "dev", after: start, initialized: nil, limit: 100)
            #expect(feed.count == 49)
            #expect(!feed.contains { $0.email == "batch25@example.com" })
            #expect(feed.map(\.feedSeq) == Array((start + 1)...(start + 49)))
            #expect(try await store.users(environmentID: "dev").contains { $0.email == "batch25@example.com" } == false)
        }
    }
}
