import Foundation
import Synchronization
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// A badge sign-in as it starts at the directory's door, on each store: what a try costs
/// before the transaction decides, and that the transaction decides on the PIN as it was
/// checked.
@Suite("A badge sign-in at the directory's door")
struct BadgeSignInDoorStoreTests {
    /// PINs hashed as `hash:PIN`, each call counted by kind and environment.
    private final class CountingHasher: PinHashing {
        let calls = Mutex<[String]>([])

        func verify(_ pin: String, against stored: String?, for environmentID: String) async throws -> (matched: Bool, checked: String) {
            calls.withLock { $0.append("verify@\(environmentID)") }
            let checked = stored ?? "decoy"
            return (checked == "hash:\(pin)", checked)
        }

        func make(_ pin: String, for environmentID: String) async throws -> String {
            calls.withLock { $0.append("make@\(environmentID)") }
            return "hash:\(pin)"
        }
    }

    /// A try with `badge` and `pin` (and `newPin`) on the device whose key is `key`.
    private static func signIn(
        _ changes: DirectoryChanges, _ badge: String, pin: String, newPin: String? = nil, key: String, hasher: CountingHasher,
        admit: (SharedDeviceRecord) -> Void
    ) async throws -> (outcome: BadgeOutcome, environmentID: String?) {
        let proof = freshProof(by: key)
        return try await changes.signInWithBadge(badgeHash: badge, pin: pin, newPin: newPin, proof: proof, hasher: hasher, admit: admit) {
            BadgeAttempt(
                badgeHash: badge, checkedPinHash: $0.checked, pinMatched: $0.matched, newPinHash: $0.newPinHash, proof: proof,
                shiftID: UUID().uuidString, refreshTokenHash: UUID().uuidString, refreshTokenExpiresAt: Date() + 600,
                refreshTokenMaxExpiresAt: Date() + 3600, settings: BadgeSettings(maxFailedPins: 3))
        }
    }

    @Test(arguments: StoreKind.allCases) func aTryCostsAHashOnlyOnAnEnrolledDeviceAndANewPinOnlyAfterATemporaryOne(
        _ kind: StoreKind
    )
        async throws
    {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let changes = DirectoryChanges(store: store, claimMappings: ClaimMappingDirectory([]))
            let admin = try await environment.admin()
            _ = try await store.createSharedDevice(
                name: "Van", teamID: nil, codeHash: "code", enrollmentExpiresAt: Date() + 900, by: admin, now: Date())
            let device = try await changes.enrollSharedDevice(codeHash: "code", proof: freshProof(by: "van-key"))
            let worker = try await store.setRole(.worker, email: "w@example.com", by: admin, managed: .none, now: Date())
            try await store.issueBadge(
                BadgeRecord(
                    id: UUID().uuidString, userID: worker.id, environmentID: "dev", badgeHash: "badge", pinHash: "hash:1357",
                    issuedAt: Date(), expiresAt: Date() + 3600),
                managersIssue: false, by: admin, now: Date())
            let hasher = CountingHasher()
            let admitted = Mutex<[String]>([])
            let admit = { (device: SharedDeviceRecord) in admitted.withLock { $0.append(device.id) } }

            // A key anyone can make: refused before any limit is taken or any PIN hashed.
            let stranger = try await Self.signIn(
                changes, "badge", pin: "1357", newPin: "2468", key: "made-up", hasher: hasher, admit: admit)
            #expect(stranger.outcome == .refused && stranger.environmentID == nil)
            #expect(hasher.calls.withLock { $0 }.isEmpty && admitted.withLock { $0 }.isEmpty)

            // A wrong PIN with a new one: one check, no new hash, counted by the transaction.
            let wrong = try await Self.signIn(changes, "badge", pin: "0000", newPin: "2468", key: "van-key", hasher: hasher, admit: admit)
            #expect(wrong.outcome == .wrongPin(attemptsLeft: 2) && wrong.environmentID == "dev")
            #expect(hasher.calls.withLock { $0 } == ["verify@dev"] && admitted.withLock { $0 } == [device.id])

            // The issued PIN is temporary: right, with a new PIN, it costs a second hash and starts the shift.
            let signedIn = try await Self.signIn(
                changes, "badge", pin: "1357", newPin: "2468", key: "van-key", hasher: hasher, admit: admit)
            guard case .signedIn(let shift) = signedIn.outcome else {
                Issue.record("\(signedIn.outcome)")
                return
            }
            #expect(shift.userID == worker.id && shift.sharedDeviceID == device.id)
            #expect(hasher.calls.withLock { $0 } == ["verify@dev", "verify@dev", "make@dev"])
            #expect(try await store.badge(hash: "badge")?.pinHash == "hash:2468")

            // Ended by the device itself, once.
            #expect(try await changes.endShift(provenBy: freshProof(by: "van-key"))?.id == shift.id)
            #expect(try await changes.endShift(provenBy: freshProof(by: "van-key")) == nil)
        }
    }
}
