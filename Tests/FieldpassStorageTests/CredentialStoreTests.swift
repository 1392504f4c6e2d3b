import Foundation
import GRDB
import Testing
import Tokens
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Credential store")
struct CredentialStoreTests {
    /// A signed-in device of alice: its session and refresh token hash.
    static func signedIn(_ environment: StoreTestEnvironment) async throws -> OnboardingSession {
        let (_, state) = try await environment.register()
        let session = try #require(try await environment.store.consumeState(state, now: Date()))
        _ = try await environment.store.completeLogin(CompletedLogin.test(session), now: Date())
        return session
    }

    static func rotation(_ old: String, _ new: String, sealed: [UInt8]? = nil, ttl: Int = 3000, grace: Int = 0) -> RefreshRotation {
        RefreshRotation(oldHash: old, newHash: new, sealedSuccessor: sealed, ttl: ttl, grace: grace)
    }

    @Test(arguments: StoreKind.allCases) func anotherSubjectForTheSameUserIsRefusedAndAudited(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let user = try await store.ensureUser(email: "alice@example.com", environmentID: "dev", now: Date())
            let first = SignInAttempt(userID: user.id, issuer: "https://idp.test", subject: "sub-1", promoteToAdmin: false)
            let stranger = SignInAttempt(userID: user.id, issuer: "https://idp.test", subject: "sub-2", promoteToAdmin: false)
            let otherIssuer = SignInAttempt(userID: user.id, issuer: "https://other.test", subject: "sub-1", promoteToAdmin: false)

            guard case .signedIn = try await store.recordSignIn(first, now: Date()) else {
                Issue.record("first sign-in refused")
                return
            }
            #expect(try await store.recordSignIn(stranger, now: Date()) == .identityMismatch)
            #expect(try await store.recordSignIn(otherIssuer, now: Date()) == .identityMismatch)
            let audit = try await store.auditLog(environmentID: "dev", before: nil, limit: 10)
            #expect(audit.filter { $0.action == "identity.mismatch" }.count == 2)
            #expect(audit.first?.after == ["issuer": "https://other.test", "subject": "sub-1"])

            try await store.resetIdentity(userID: user.id, by: .cli(environmentID: "dev"), now: Date())
            guard case .signedIn = try await store.recordSignIn(stranger, now: Date()) else {
                Issue.record("rebinding refused")
                return
            }
            #expect(try await store.recordSignIn(first, now: Date()) == .identityMismatch)
            #expect(try await store.user(id: user.id, environmentID: "dev")?.idpSubject == "sub-2")
        }
    }

    @Test(arguments: StoreKind.allCases) func oneIdPAccountCannotBindASecondUser(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let alice = try await store.ensureUser(email: "alice@example.com", environmentID: "dev", now: Date())
            let boss = try await store.ensureUser(email: "boss@example.com", environmentID: "dev", now: Date())
            let account = (issuer: "https://idp.test", subject: "sub-1")
            let asAlice = SignInAttempt(userID: alice.id, issuer: account.issuer, subject: account.subject, promoteToAdmin: false)
            let asBoss = SignInAttempt(userID: boss.id, issuer: account.issuer, subject: account.subject, promoteToAdmin: true)

            guard case .signedIn = try await store.recordSignIn(asAlice, now: Date()) else {
                Issue.record("first sign-in refused")
                return
            }
            #expect(try await store.recordSignIn(asBoss, now: Date()) == .identityInUse)

            let unchanged = try #require(try await store.user(id: boss.id, environmentID: "dev"))
            #expect(unchanged.role == .worker && unchanged.idpSubject == nil)
            let entry = try #require(try await store.auditLog(environmentID: "dev", before: nil, limit: 1).first)
            #expect(entry.action == "identity.in_use" && entry.target == "user:\(boss.id)")
            #expect(entry.after?["bound_to"] == "user:\(alice.id)")
            // Once alice's binding is reset, the account is free for whoever signs in with it next.
            try await store.resetIdentity(userID: alice.id, by: .cli(environmentID: "dev"), now: Date())
            guard case .signedIn = try await store.recordSignIn(asBoss, now: Date()) else {
                Issue.record("free account refused")
                return
            }
        }
    }

    @Test(arguments: StoreKind.allCases) func resettingTheIdentityRevokesEveryDevice(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let session = try await Self.signedIn(environment)
            let attempt = SignInAttempt(userID: session.userID, issuer: "https://idp.test", subject: "s", promoteToAdmin: false)
            guard case .signedIn = try await store.recordSignIn(attempt, now: Date()) else {
                Issue.record("sign-in refused")
                return
            }

            try await store.resetIdentity(userID: session.userID, by: .cli(environmentID: "dev"), now: Date())

            #expect(try await store.rotateRefreshToken(Self.rotation("hash-\(session.id)", "next"), now: Date()) == .refused)
            let standing = try await store.standing(jti: "j", userID: session.userID, deviceID: session.deviceID, environmentID: "dev")
            #expect(standing.revoked)
            // The sign-in still waiting for its data ends: its device can use nothing it got.
            #expect(try await store.session(id: session.id)?.status == .expired)
            #expect(
                try await store.events(sessionID: session.id, after: 2).map { [$0.seq: $0.event] } == [[3: .sessionExpired]])
            let entry = try #require(try await store.auditLog(environmentID: "dev", before: nil, limit: 1).first)
            #expect(entry.action == "identity.reset" && entry.after == ["devices_revoked": "1"])
        }
    }

    @Test(arguments: StoreKind.allCases) func disablingRevokesEveryDeviceAndRefusesSignInAndRefresh(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let session = try await Self.signedIn(environment)
            let attempt = SignInAttempt(userID: session.userID, issuer: "https://idp.test", subject: "s", promoteToAdmin: false)

            let disabled = try await store.setDisabled(true, userID: session.userID, by: .cli(environmentID: "dev"), now: Date())

            #expect(disabled.disabled)
            #expect(try await store.recordSignIn(attempt, now: Date()) == .userDisabled)
            #expect(try await store.rotateRefreshToken(Self.rotation("hash-\(session.id)", "next"), now: Date()) == .refused)
            let standing = try await store.standing(jti: "j", userID: session.userID, deviceID: session.deviceID, environmentID: "dev")
            #expect(standing.revoked && standing.user?.disabled == true)
            _ = try await store.setDisabled(false, userID: session.userID, by: .cli(environmentID: "dev"), now: Date())
            // Enabled again, but the old device stays revoked.
            let after = try await store.standing(jti: "j", userID: session.userID, deviceID: session.deviceID, environmentID: "dev")
            #expect(after.revoked && after.user?.disabled == false)
            let actions = try await store.auditLog(environmentID: "dev", before: nil, limit: 10).map(\.action)
            #expect(actions == ["user.enable", "user.disable", "device.sign_in", "device.create", "user.create"])
        }
    }

    @Test(arguments: StoreKind.allCases) func aRevokedDeviceFreesItsNameForANewDevice(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let session = try await Self.signedIn(environment)
            try await store.revokeDevice(id: session.deviceID, userID: session.userID, by: .cli(environmentID: "dev"), now: Date())
            await #expect(throws: DirectoryError.unknownUser) {
                try await store.revokeDevice(
                    id: session.deviceID, userID: session.userID, by: .cli(environmentID: "other"), now: Date())
            }
            await #expect(throws: DirectoryError.unknownDevice) {
                try await store.revokeDevice(id: "no-such-device", userID: session.userID, by: .cli(environmentID: "dev"), now: Date())
            }

            let (again, _) = try await environment.register()

            #expect(again.deviceID != session.deviceID)
            let devices = try await store.devices(userID: session.userID, environmentID: "dev")
            #expect(devices.count == 2 && devices.filter { $0.revokedAt == nil }.map(\.id) == [again.deviceID])
        }
    }

    @Test(arguments: StoreKind.allCases) func aRetryWithinTheGraceGetsTheSealedSuccessorAndLaterReuseRevokes(_ kind: StoreKind) async throws
    {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let session = try await Self.signedIn(environment)
            let grant = RefreshGrant(userID: session.userID, deviceID: session.deviceID, environmentID: "dev")
            let sealed: [UInt8] = [1, 2, 3]
            let start = Date()

            #expect(
                try await store.rotateRefreshToken(Self.rotation("hash-\(session.id)", "second", sealed: sealed, grace: 10), now: start)
                    == .rotated(grant))
            let retry = try await store.rotateRefreshToken(
                Self.rotation("hash-\(session.id)", "other", grace: 10), now: start.addingTimeInterval(5))
            #expect(retry == .retried(grant, sealedSuccessor: sealed))
            let late = try await store.rotateRefreshToken(
                Self.rotation("hash-\(session.id)", "third", grace: 10), now: start.addingTimeInterval(11))

            #expect(late == .refused)
            #expect(try await store.rotateRefreshToken(Self.rotation("second", "fourth"), now: start.addingTimeInterval(12)) == .refused)
        }
    }

    @Test(arguments: StoreKind.allCases) func theSweepForgetsExpiredRefreshTokensButKeepsWhatReuseDetectionNeeds(
        _ kind: StoreKind
    ) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let session = try await Self.signedIn(environment)
            let grant = RefreshGrant(userID: session.userID, deviceID: session.deviceID, environmentID: "dev")
            let first = "hash-\(session.id)"  // expires 3600 s after the sign-in
            let start = Date()
            func at(_ seconds: Double) -> Date { start.addingTimeInterval(seconds) }
            // "short" lives 60 s and is rotated at 30 s: expired at the sweep. "first" was rotated
            // long before the sweep but has not expired: it is what reuse detection looks up.
            _ = try await store.rotateRefreshToken(Self.rotation(first, "short", ttl: 60), now: start)
            #expect(try await store.rotateRefreshToken(Self.rotation("short", "live"), now: at(30)) == .rotated(grant))

            _ = try await store.sweepSessions(now: at(100), deliveredBefore: at(100), deleteBefore: start)

            #expect(try await store.liveRefreshToken(hash: "live", now: at(101)) != nil)
            // Rotated within the grace, swept, retried: the sealed successor is still there.
            let sealed: [UInt8] = [7, 7]
            #expect(
                try await store.rotateRefreshToken(Self.rotation("live", "next", sealed: sealed, grace: 10), now: at(110))
                    == .rotated(grant))
            _ = try await store.sweepSessions(now: at(115), deliveredBefore: at(115), deleteBefore: start)
            #expect(
                try await store.rotateRefreshToken(Self.rotation("live", "other", grace: 10), now: at(118))
                    == .retried(grant, sealedSuccessor: sealed))
            #expect(try await store.liveRefreshToken(hash: "next", now: at(119)) != nil)
            // The expired token is gone: revoking it finds nothing (and so revokes nothing).
            #expect(try await store.revokeRefreshToken(hash: "short", proof: nil, now: at(120)) == .unknown)
            #expect(!(try await store.standing(jti: "j", userID: nil, deviceID: session.deviceID, environmentID: "dev").revoked))
            // The kept rotated token coming back is a reuse: the device is cut off.
            #expect(try await store.rotateRefreshToken(Self.rotation(first, "stolen"), now: at(121)) == .refused)
            #expect(try await store.standing(jti: "j", userID: nil, deviceID: session.deviceID, environmentID: "dev").revoked)
        }
    }

    @Test(arguments: StoreKind.allCases) func aRotatedTokenGoesOnceItsSuccessorIsRotatedToo(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let session = try await Self.signedIn(environment)
            let start = Date()
            let first = "hash-\(session.id)"
            _ = try await store.rotateRefreshToken(Self.rotation(first, "second"), now: start)
            _ = try await store.rotateRefreshToken(Self.rotation("second", "third"), now: start.addingTimeInterval(10))

            // Past every grace: "first" is two rotations old, "second" the latest rotated one.
            _ = try await store.sweepSessions(
                now: start.addingTimeInterval(400), deliveredBefore: start.addingTimeInterval(400), deleteBefore: start)

            #expect(try await store.revokeRefreshToken(hash: first, proof: nil, now: start.addingTimeInterval(401)) == .unknown)
            #expect(!(try await store.standing(jti: "j", userID: nil, deviceID: session.deviceID, environmentID: "dev").revoked))
            #expect(try await store.liveRefreshToken(hash: "third", now: start.addingTimeInterval(401)) != nil)
            // The latest rotated token is still known: its reuse cuts the device off.
            #expect(try await store.rotateRefreshToken(Self.rotation("second", "stolen"), now: start.addingTimeInterval(402)) == .refused)
            #expect(try await store.standing(jti: "j", userID: nil, deviceID: session.deviceID, environmentID: "dev").revoked)
        }
    }

    @Test(arguments: StoreKind.allCases) func rotationNeverPassesTheAbsoluteLifetime(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let session = try await Self.signedIn(environment)
            // OnboardingStoreTests.login ends refreshing 7200 s after the sign-in.
            _ = try await store.rotateRefreshToken(Self.rotation("hash-\(session.id)", "second", ttl: 1_000_000), now: Date())
            let live = try #require(try await store.liveRefreshToken(hash: "second", now: Date()))
            #expect(live.expiresAt.timeIntervalSinceNow < 7201)
            #expect(try await store.liveRefreshToken(hash: "second", now: Date().addingTimeInterval(7201)) == nil)
        }
    }

    /// Kept while a verifier could still accept the token: until its expiry plus the clock leeway.
    @Test(arguments: StoreKind.allCases) func aRevokedAccessTokenIsRememberedUntilItExpires(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let expiry = Date().addingTimeInterval(1)
            let leeway = JWTVerificationPolicy().leeway
            try await store.revokeAccessToken(jti: "gone", expiresAt: expiry)
            #expect(try await store.standing(jti: "gone", userID: nil, deviceID: nil, environmentID: "dev").revoked)
            #expect(!(try await store.standing(jti: "other", userID: nil, deviceID: nil, environmentID: "dev").revoked))
            _ = try await store.sweepSessions(
                now: expiry.addingTimeInterval(leeway - 1), deliveredBefore: expiry.addingTimeInterval(leeway - 1), deleteBefore: Date())
            #expect(try await store.standing(jti: "gone", userID: nil, deviceID: nil, environmentID: "dev").revoked)
            _ = try await store.sweepSessions(
                now: expiry.addingTimeInterval(leeway + 1), deliveredBefore: expiry.addingTimeInterval(leeway + 1), deleteBefore: Date())
            #expect(!(try await store.standing(jti: "gone", userID: nil, deviceID: nil, environmentID: "dev").revoked))
        }
    }

    @Test(arguments: StoreKind.allCases) func anAdminGrantsOnlyRealmsOfTheirOwnEnvironment(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let alice = try await store.ensureUser(email: "alice@example.com", environmentID: "dev", now: Date())
            let bob = try await store.ensureUser(email: "bob@example.com", environmentID: "dev", now: Date())
            let stranger = try await store.ensureUser(email: "eve@other.test", environmentID: "other", now: Date())
            let theirTeam = try await store.createTeam(name: "Theirs", by: .cli(environmentID: "other"), now: Date())
            func grant(_ path: String) async throws -> AccessFacts {
                try await store.changeGrant(.read, realmPath: path, userID: alice.id, by: .cli(environmentID: "dev"), now: Date())
            }

            for foreign in ["/users/\(stranger.id)", "/teams/\(theirTeam.id)", "/users/\(stranger.id)/notes", "/users/nobody"] {
                await #expect(throws: DirectoryError.unknownRealm, "\(foreign)") { _ = try await grant(foreign) }
            }
            #expect(try await grant("/users/\(bob.id)").grants["/users/\(bob.id)"] == .read)
            #expect(try await grant("/teams/*").grants["/teams/*"] == .read)
        }
    }
}
