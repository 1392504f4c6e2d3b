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
}
