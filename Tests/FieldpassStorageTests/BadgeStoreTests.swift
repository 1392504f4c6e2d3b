import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport
import Tokens

@Suite("Badges in the store")
struct BadgeStoreTests {

    private static func badge(for user: UserRecord, hash: String, pinHash: String = "pin-hash") -> BadgeRecord {
        BadgeRecord(
            id: UUID().uuidString, userID: user.id, environmentID: user.environmentID, badgeHash: hash, pinHash: pinHash,
            issuedAt: Date(), expiresAt: Date() + 3600)
    }

    private static func attempt(_ hash: String, pinHash: String = "pin-hash", matched: Bool, newPin: String? = nil) -> BadgeAttempt {
        BadgeAttempt(
            badgeHash: hash, checkedPinHash: pinHash, pinMatched: matched, newPinHash: newPin, proof: freshProof(by: "van-key"),
            shiftID: UUID().uuidString, refreshTokenHash: UUID().uuidString, refreshTokenExpiresAt: Date() + 600,
            refreshTokenMaxExpiresAt: Date() + 3600, settings: BadgeSettings(maxFailedPins: 3))
    }

    @Test(arguments: StoreKind.allCases) func aBadgeReplacedLockedAndResetAsTheRulesSay(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            _ = try await store.createSharedDevice(
                name: "Van", teamID: nil, codeHash: "code", enrollmentExpiresAt: Date() + 900, by: admin, now: Date())
            _ = try await store.enrollSharedDevice(codeHash: "code", proof: freshProof(by: "van-key"), now: Date())
            let worker = try await store.setRole(
                .worker, email: "w@example.com", by: .cli(environmentID: "dev"), managed: .none, now: Date())

            try await store.issueBadge(Self.badge(for: worker, hash: "first"), managersIssue: false, by: admin, now: Date())
            try await store.issueBadge(Self.badge(for: worker, hash: "second"), managersIssue: false, by: admin, now: Date())
            #expect(try await store.badge(hash: "second")?.pinIssuedBy == admin.actor)
            #expect(try await store.badge(hash: "first") == nil)
            #expect(try await store.badge(userID: worker.id, environmentID: "dev")?.badgeHash == "second")
            #expect(try await store.badge(userID: worker.id, environmentID: "other") == nil)

            #expect(try await store.signInWithBadge(Self.attempt("second", matched: true), now: Date()) == .pinChangeRequired)
            #expect(try await store.signInWithBadge(Self.attempt("second", matched: false), now: Date()) == .wrongPin(attemptsLeft: 2))
            #expect(try await store.signInWithBadge(Self.attempt("second", matched: false), now: Date()) == .wrongPin(attemptsLeft: 1))
            #expect(try await store.signInWithBadge(Self.attempt("second", matched: false), now: Date()) == .locked)
            #expect(try await store.signInWithBadge(Self.attempt("second", matched: true, newPin: "mine"), now: Date()) == .locked)
            #expect(try await store.badge(hash: "second")?.lockedAt != nil)

            try await store.resetBadgePin(userID: worker.id, pinHash: "reset-hash", managersIssue: false, by: admin, now: Date())
            let reset = try #require(try await store.badge(hash: "second"))
            #expect(reset.lockedAt == nil && reset.failedPins == 0 && reset.pinTemporary && reset.pinIssuedBy == admin.actor)
            let signIn = Self.attempt("second", pinHash: "reset-hash", matched: true, newPin: "mine")
            let outcome = try await store.signInWithBadge(signIn, now: Date())
            guard case .signedIn(let shift) = outcome else {
                Issue.record("\(outcome)")
                return
            }
            #expect(shift.userID == worker.id && shift.email == "w@example.com" && shift.amr == ["pin", "badge", "temporary_pin"])
            // The person's shifts say who made the PIN it was started with.
            let listed = try await store.shifts(userID: worker.id, environmentID: "dev", limit: 5)
            #expect(listed.map(\.id) == [shift.id] && listed.first?.pinIssuedBy == admin.actor)
            #expect(listed.first?.amr == ["pin", "badge", "temporary_pin"])
            // The shift's refresh keeps how the worker signed in, for its access tokens to say.
            let refreshed = try await store.rotateRefreshToken(
                RefreshRotation(
                    oldHash: signIn.refreshTokenHash, newHash: UUID().uuidString, sealedSuccessor: nil, ttl: 600, grace: 0,
                    proof: freshProof(by: "van-key")),
                now: Date())
            guard case .rotated(let grant) = refreshed else {
                Issue.record("the badge shift's refresh was refused: \(refreshed)")
                return
            }
            #expect(grant.shift?.id == shift.id && grant.shift?.amr == ["pin", "badge", "temporary_pin"])
            let own = try #require(try await store.badge(hash: "second"))
            #expect(own.pinHash == "mine" && !own.pinTemporary && own.pinIssuedBy == nil)

            try await store.revokeBadge(userID: worker.id, by: admin, now: Date())
            #expect(try await store.signInWithBadge(Self.attempt("second", pinHash: "mine", matched: true), now: Date()) == .refused)
            await #expect(throws: DirectoryError.unknownBadge) { try await store.revokeBadge(userID: worker.id, by: admin, now: Date()) }
        }
    }

    @Test(arguments: StoreKind.allCases) func aPersonWithABadgeIsNoUnconfirmedNewcomer(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let (session, _) = try await environment.register(email: "badge@example.com", expiresIn: 60)
            let (other, _) = try await environment.register(email: "nobody@example.com", expiresIn: 60)
            let later = Date().addingTimeInterval(120)
            _ = try await store.sweepSessions(now: later, deliveredBefore: later, deleteBefore: .distantPast)
            let person = try #require(try await store.user(id: session.userID, environmentID: "dev"))
            try await store.issueBadge(Self.badge(for: person, hash: "kept"), managersIssue: false, by: admin, now: Date())
            // Only the one without a badge goes: a badge's worker may never sign in at the IdP.
            #expect(try await store.removeUnconfirmedUsers(registeredBefore: later) == 1)
            #expect(try await store.user(id: other.userID, environmentID: "dev") == nil)
            #expect(try await store.badge(hash: "kept")?.userID == person.id)
        }
    }

    @Test func aPinHashIsSaltedSlowAndCheckedExactly() throws {
        let first = try PinHash.make("38472910")
        let second = try PinHash.make("38472910")
        #expect(first != second && first.hasPrefix("scrypt$16384$8$1$"))
        #expect(PinHash.verify("38472910", against: first) && PinHash.verify("38472910", against: second))
        #expect(!PinHash.verify("38472911", against: first) && !PinHash.verify("", against: first))
        #expect(!PinHash.verify("38472910", against: "scrypt$1048576$8$1$AAAA$BBBB") && !PinHash.verify("38472910", against: "junk"))
    }
}
