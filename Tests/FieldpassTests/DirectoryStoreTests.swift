import Foundation
import Testing
@testable import Fieldpass

@Suite("Directory store")
struct DirectoryStoreTests {
    @Test func repeatingAChangeLogsItOnce() async throws {
        try await TestEnvironment.with { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "w@example.com", environmentID: "dev", now: Date())
            for _ in 0..<2 {
                _ = try await store.setRole(.manager, userID: user.id, environmentID: "dev", actor: "user:a", now: Date())
                _ = try await store.grant(.read, realmPath: "/tasks", userID: user.id, environmentID: "dev", actor: "user:a", now: Date())
            }
            let log = try await store.auditLog(environmentID: "dev", before: nil, limit: 10)
            #expect(log.map(\.action) == ["grant.set", "user.role"])
            #expect(log[1].before == ["role": "worker"])
            #expect(log[1].after == ["role": "manager"])
            #expect(log[1].actor == "user:a")
            #expect(try await store.auditLog(environmentID: "other", before: nil, limit: 10).isEmpty)
        }
    }

    @Test func aBootstrapAdminIsPromotedAtTheFirstSignInOnly() async throws {
        try await TestEnvironment.with { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Date())
            let first = try await store.recordSignIn(userID: user.id, idpSubject: "s", promoteToAdmin: true, now: Date())
            #expect(first.user.role == .admin)
            _ = try await store.setRole(.worker, userID: user.id, environmentID: "dev", actor: "user:x", now: Date())
            let second = try await store.recordSignIn(userID: user.id, idpSubject: "s", promoteToAdmin: true, now: Date())
            #expect(second.user.role == .worker)
        }
    }

    @Test func theFeedListsEachNewRealmOnceAfterItsCursor() async throws {
        try await TestEnvironment.with { environment in
            let store = environment.store
            let start = try await store.realmFeed(environmentID: "dev", after: 0, initialized: nil, limit: 1000).last?.feedSeq ?? 0
            var created: [String] = []
            for index in 0..<25 {
                created.append(try await store.ensureUser(email: "u\(index)@example.com", environmentID: "dev", now: Date()).id)
            }
            _ = try await store.ensureUser(email: "x@other.test", environmentID: "other", now: Date())
            var seen: [String] = []
            var position = start
            while true {
                let page = try await store.realmFeed(environmentID: "dev", after: position, initialized: false, limit: 7)
                guard let last = page.last else { break }
                seen += page.map(\.userID)
                position = last.feedSeq
            }
            #expect(seen == created)

            _ = try await store.markRealmInitialized(path: RealmPath.personal(userID: created[0]), environmentID: "dev", now: Date())
            let changed = try await store.realmFeed(environmentID: "dev", after: position, initialized: nil, limit: 10)
            #expect(changed.map(\.userID) == [created[0]])
            #expect(changed.first?.initialized == true)
            #expect(try await store.realmFeed(environmentID: "dev", after: position, initialized: false, limit: 10).isEmpty)
        }
    }

    @Test func aRefreshTokenWorksOnceAndItsReuseRevokesTheDevice() async throws {
        try await TestEnvironment.with { environment in
            let store = environment.store
            let (session, state) = try await environment.register()
            let taken = try #require(try await store.consumeState(state, now: Date()))
            _ = try await store.completeLogin(SQLiteStoreTests.login(taken), now: Date())
            let later = Date().addingTimeInterval(3000)
            let grant = try await store.rotateRefreshToken(oldHash: "hash-\(session.id)", newHash: "second", newExpiry: later, now: Date())
            #expect(grant == RefreshGrant(userID: session.userID, deviceID: session.deviceID, environmentID: "dev"))
            #expect(try await store.rotateRefreshToken(oldHash: "hash-\(session.id)", newHash: "third", newExpiry: later, now: Date()) == nil)
            #expect(try await store.rotateRefreshToken(oldHash: "second", newHash: "fourth", newExpiry: later, now: Date()) == nil)
        }
    }
}
