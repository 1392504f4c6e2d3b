import Foundation
import Logging
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("DPoP proofs a store has seen")
struct DPoPProofStoreTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)

    @Test(arguments: StoreKind.allCases) func aProofIsTakenOnceAndForgottenAfterItsTime(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let until = Self.now.addingTimeInterval(65)
            #expect(try await store.recordDPoPProof(replayKey: "key-1", expiresAt: until))
            #expect(try await !store.recordDPoPProof(replayKey: "key-1", expiresAt: until))
            #expect(try await store.recordDPoPProof(replayKey: "key-2", expiresAt: until))
            // The sweep forgets a proof once its iat would be refused anyway.
            _ = try await store.sweepSessions(now: until.addingTimeInterval(1), deliveredBefore: until, deleteBefore: Self.now)
            #expect(try await store.recordDPoPProof(replayKey: "key-1", expiresAt: until.addingTimeInterval(100)))
        }
    }

    @Test func aProofUsedAtOneInstanceIsRefusedAtTheOther() async throws {
        try await StoreTestEnvironment.with(store: .postgres) { environment in
            let opened = try StoreFactory.open(environment.storage, realmPrefixes: environment.realmPrefixes, logger: Logger(label: "test"))
            try await opened.use { other in
                let until = Self.now.addingTimeInterval(65)
                // Both at once, many times: exactly one of each pair is taken.
                for round in 0..<20 {
                    async let first = environment.store.recordDPoPProof(replayKey: "race-\(round)", expiresAt: until)
                    async let second = other.recordDPoPProof(replayKey: "race-\(round)", expiresAt: until)
                    let taken = try await [first, second].filter { $0 }.count
                    #expect(taken == 1, "round \(round)")
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func aProvenRegistrationsRefreshTokenStaysBoundToItsKey(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (_, state) = try await store.register(dpopThumbprint: "device-key")
            let taken = try #require(try await store.consumeState(state, now: Date()))
            #expect(taken.dpopThumbprint == "device-key")
            _ = try await store.completeLogin(CompletedLogin.test(taken), now: Date())
            let first = "hash-\(taken.id)"
            #expect(try await store.liveRefreshToken(hash: first, now: Date())?.grant.dpopThumbprint == "device-key")
            func rotate(_ old: String, to new: String, provenBy key: String?) async throws -> RefreshOutcome {
                try await store.rotateRefreshToken(
                    RefreshRotation(
                        oldHash: old, newHash: new, sealedSuccessor: nil, ttl: 3000, grace: 0, proof: key.map { freshProof(by: $0) }),
                    now: Date())
            }
            #expect(try await rotate(first, to: "stolen", provenBy: nil) == .proofRequired)
            #expect(try await rotate(first, to: "stolen", provenBy: "thief-key") == .proofRequired)
            guard case .rotated = try await rotate(first, to: "second", provenBy: "device-key") else {
                Issue.record("the owner's proven refresh rotates")
                return
            }
            // A copy of the now rotated token, without the key, cuts nobody off.
            #expect(try await rotate(first, to: "third", provenBy: nil) == .proofRequired)
            #expect(try await store.liveRefreshToken(hash: "second", now: Date())?.grant.dpopThumbprint == "device-key")
            guard case .rotated = try await rotate("second", to: "fourth", provenBy: "device-key") else {
                Issue.record("the successor works with the same key")
                return
            }
        }
    }

    /// A proof's use is recorded in the transaction of what it proves: used before, it is
    /// refused there, and nothing of the operation is written.
    @Test(arguments: StoreKind.allCases) func aProofUsedBeforeChangesNothing(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let (_, state) = try await store.register(dpopThumbprint: "device-key")
            let taken = try #require(try await store.consumeState(state, now: Date()))
            _ = try await store.completeLogin(CompletedLogin.test(taken), now: Date())
            let first = "hash-\(taken.id)"
            let used = freshProof(by: "device-key")
            #expect(try await store.recordDPoPProof(replayKey: used.replayKey, expiresAt: used.rememberUntil))
            let replayed = RefreshRotation(oldHash: first, newHash: "replayed", sealedSuccessor: nil, ttl: 3000, grace: 0, proof: used)
            await #expect(throws: DPoPRefusal.usedBefore) {
                try await store.rotateRefreshToken(replayed, now: Date())
            }
            await #expect(throws: DPoPRefusal.usedBefore) {
                try await store.revokeRefreshToken(hash: first, proof: used, now: Date())
            }
            #expect(try await store.liveRefreshToken(hash: "replayed", now: Date()) == nil, "no successor was stored")
            let fresh = RefreshRotation(
                oldHash: first, newHash: "second", sealedSuccessor: nil, ttl: 3000, grace: 0, proof: freshProof(by: "device-key"))
            guard case .rotated = try await store.rotateRefreshToken(fresh, now: Date()) else {
                Issue.record("the token was neither rotated nor revoked by the refused tries")
                return
            }
            #expect(try await store.revokeRefreshToken(hash: "second", proof: nil, now: Date()) == .proofRequired)
            #expect(try await store.revokeRefreshToken(hash: "second", proof: freshProof(by: "device-key"), now: Date()) == .revoked)
            #expect(try await store.liveRefreshToken(hash: "second", now: Date()) == nil)
        }
    }

}
