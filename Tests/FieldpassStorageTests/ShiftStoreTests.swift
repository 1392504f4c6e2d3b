import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

@Suite("Shifts on shared devices in the store")
struct ShiftStoreTests {

    /// A device of `dev` enrolled with `key`.
    private static func enrolledDevice(
        _ store: any FieldpassStore, key: String, by admin: DirectoryCaller
    ) async throws -> SharedDeviceRecord {
        _ = try await store.createSharedDevice(
            name: "Van \(key)", teamID: nil, codeHash: "code-\(key)", enrollmentExpiresAt: Date() + 900, by: admin, now: Date())
        return try await store.enrollSharedDevice(codeHash: "code-\(key)", proof: freshProof(by: key), now: Date())
    }

    /// Runs `body` on a store of `kind` with its admin and a device enrolled with `van-key`.
    private static func withVan(
        _ kind: StoreKind, _ body: @Sendable (StoreTestEnvironment, DirectoryCaller, SharedDeviceRecord) async throws -> Void
    ) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let admin = try await environment.admin()
            try await body(environment, admin, try await enrolledDevice(environment.store, key: "van-key", by: admin))
        }
    }

    /// `email` signs in on the device with `key`, as the callback completes it: the shift's
    /// id is the sign-in's device record's. Answers the shift and its refresh token's hash.
    private static func signIn(
        _ environment: StoreTestEnvironment, _ email: String, on device: SharedDeviceRecord, at now: Date = Date()
    ) async throws -> (shift: ShiftRecord, refreshHash: String) {
        let store = environment.store
        let (_, state) = try await store.register(email: email, installID: nil, dpopThumbprint: device.keyThumbprint)
        let session = try #require(try await store.consumeState(state, now: now))
        var login = CompletedLogin.test(session)
        let shift = ShiftRecord(id: session.deviceID, sharedDeviceID: device.id, userID: session.userID, email: email, startedAt: now)
        login.shift = shift
        #expect(!(try await store.completeLogin(login, now: now)).isEmpty)
        return (shift, login.refreshTokenHash)
    }

    private static func rotate(
        _ store: any FieldpassStore, _ hash: String, key: String, limits: ShiftLimits = ShiftLimits(), now: Date = Date()
    )
        async throws -> RefreshOutcome
    {
        try await store.rotateRefreshToken(
            RefreshRotation(
                oldHash: hash, newHash: UUID().uuidString, sealedSuccessor: nil, ttl: 600, grace: 0, proof: freshProof(by: key),
                shiftLimits: limits),
            now: now)
    }

    @Test(arguments: StoreKind.allCases) func theNextWorkersSignInEndsTheOpenShiftAndItsTokens(_ kind: StoreKind) async throws {
        try await Self.withVan(kind) { environment, admin, van in
            let store = environment.store
            let alice = try await Self.signIn(environment, "alice@example.com", on: van)
            #expect(try await store.sharedDevice(id: van.id, visibleTo: admin)?.holder?.id == alice.shift.id)
            #expect(try await store.sharedDevices(visibleTo: admin).first?.holder?.email == "alice@example.com")
            // Alice's token works, and names her shift.
            guard case .rotated(let grant) = try await Self.rotate(store, alice.refreshHash, key: "van-key") else {
                Issue.record("alice's refresh was refused")
                return
            }
            #expect(grant.shift?.id == alice.shift.id && grant.shift?.sharedDeviceID == van.id)

            let bob = try await Self.signIn(environment, "bob@example.com", on: van)
            #expect(try await store.sharedDevice(id: van.id, visibleTo: admin)?.holder?.id == bob.shift.id)
            let standing = try await store.standing(
                jti: "j", userID: alice.shift.userID, deviceID: alice.shift.id, environmentID: "dev")
            #expect(standing.revoked)
            let history = try #require(try await store.shifts(deviceID: van.id, visibleTo: admin, limit: 10))
            #expect(history.map(\.email) == ["bob@example.com", "alice@example.com"])
            #expect(history.map(\.endReason) == [nil, .nextWorker])
            let events = try #require(try await store.shiftEvents(keyThumbprint: "van-key", after: 0, limit: 10))
            #expect(events.map(\.seq) == [1, 2, 3])
            #expect(events.map(\.type) == [.shiftStarted, .shiftEnded, .shiftStarted])
            #expect(events.map(\.shiftID) == [alice.shift.id, alice.shift.id, bob.shift.id])
            #expect(events[1].reason == .nextWorker)
            #expect(try await store.shiftEvents(keyThumbprint: "van-key", after: 2, limit: 10)?.map(\.seq) == [3])
            #expect(try await store.shiftEvents(keyThumbprint: "no-such-key", after: 0, limit: 10) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func theWorkerAnAdminAndUnenrollingEndAShift(_ kind: StoreKind) async throws {
        try await Self.withVan(kind) { environment, admin, van in
            let store = environment.store

            let alice = try await Self.signIn(environment, "alice@example.com", on: van)
            #expect(try await store.endShift(provenBy: freshProof(by: "van-key"), now: Date())?.endReason == .signedOut)
            #expect(try await Self.rotate(store, alice.refreshHash, key: "van-key") == .refused)
            // Signing out twice ends nothing more.
            #expect(try await store.endShift(provenBy: freshProof(by: "van-key"), now: Date()) == nil)

            let bob = try await Self.signIn(environment, "bob@example.com", on: van)
            #expect(try await store.endShift(deviceID: van.id, by: admin, now: Date())?.id == bob.shift.id)
            #expect(try await store.endShift(deviceID: van.id, by: admin, now: Date()) == nil)
            await #expect(throws: DirectoryError.unknownDevice) {
                try await store.endShift(deviceID: "no-such-device", by: admin, now: Date())
            }

            let carol = try await Self.signIn(environment, "carol@example.com", on: van)
            try await store.unenrollSharedDevice(id: van.id, by: admin, now: Date())
            #expect(try await Self.rotate(store, carol.refreshHash, key: "van-key") == .refused)
            await #expect(throws: DirectoryError.unknownDevice) {
                try await store.endShift(provenBy: freshProof(by: "van-key"), now: Date())
            }
            let reasons = try #require(try await store.shifts(deviceID: van.id, visibleTo: admin, limit: 10)).map(\.endReason)
            #expect(reasons == [.unenrolled, .endedByAdmin, .signedOut])
            let audit = try await store.auditLog(environmentID: "dev", filter: AuditFilter(action: "shift.end"), before: nil, limit: 50)
            #expect(audit.count == 3)
        }
    }

    @Test(arguments: StoreKind.allCases) func aShiftPastALimitEndsAtItsRefreshOrTheSweep(_ kind: StoreKind) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let admin = try await environment.admin()
            let start = Date()
            let limits = ShiftLimits(maxShift: 3_600, idleTimeout: 600)
            let van = try await Self.enrolledDevice(store, key: "van-key", by: admin)
            let depot = try await Self.enrolledDevice(store, key: "depot-key", by: admin)
            let alice = try await Self.signIn(environment, "alice@example.com", on: van, at: start)
            let bob = try await Self.signIn(environment, "bob@example.com", on: depot, at: start)

            // Idle: refused at the refresh, which ends the shift.
            #expect(try await Self.rotate(store, alice.refreshHash, key: "van-key", limits: limits, now: start + 601) == .refused)
            #expect(try await store.sharedDevice(id: van.id, visibleTo: admin)?.holder == nil)
            // The sweep ends the rest, none twice.
            #expect(try await store.endOverdueShifts(limits: limits, now: start + 300, limit: 10) == 0)
            #expect(try await store.endOverdueShifts(limits: limits, now: start + 3_600, limit: 10) == 1)
            #expect(try await store.endOverdueShifts(limits: limits, now: start + 3_600, limit: 10) == 0)
            #expect(try await store.shifts(deviceID: depot.id, visibleTo: admin, limit: 10)?.first?.endReason == .maxShift)
            #expect(try await Self.rotate(store, bob.refreshHash, key: "depot-key", limits: limits, now: start + 3_601) == .refused)
        }
    }

    @Test(arguments: StoreKind.allCases) func revokingAShiftsDeviceAnyOtherWayEndsTheShift(_ kind: StoreKind) async throws {
        try await Self.withVan(kind) { environment, admin, van in
            let store = environment.store

            // An admin revokes the shift's device, as on the person's page.
            let alice = try await Self.signIn(environment, "alice@example.com", on: van)
            try await store.revokeDevice(id: alice.shift.id, userID: alice.shift.userID, by: admin, now: Date())
            // The worker revokes it at `/me`.
            let bob = try await Self.signIn(environment, "bob@example.com", on: van)
            let bobRecord = try #require(try await store.user(id: bob.shift.userID, environmentID: "dev"))
            try await store.revokeDevice(id: bob.shift.id, userID: bobRecord.id, by: .admin(bobRecord), now: Date())
            // A spent refresh token of the shift comes back.
            let carol = try await Self.signIn(environment, "carol@example.com", on: van)
            guard case .rotated = try await Self.rotate(store, carol.refreshHash, key: "van-key") else {
                Issue.record("carol's first refresh was refused")
                return
            }
            #expect(try await Self.rotate(store, carol.refreshHash, key: "van-key") == .refused)

            #expect(try await store.sharedDevice(id: van.id, visibleTo: admin)?.holder == nil)
            let reasons = try #require(try await store.shifts(deviceID: van.id, visibleTo: admin, limit: 10)).map(\.endReason)
            #expect(reasons == [.tokenReused, .signedOut, .endedByAdmin])
            // Every app on the device hears each end once, after the shift's start.
            let events = try #require(try await store.shiftEvents(keyThumbprint: "van-key", after: 0, limit: 20))
            #expect(events.compactMap(\.reason) == [.endedByAdmin, .signedOut, .tokenReused])
            #expect(events.count == 6)
        }
    }

    @Test(arguments: StoreKind.allCases) func disablingTheWorkerEndsTheirShift(_ kind: StoreKind) async throws {
        try await Self.withVan(kind) { environment, admin, van in
            let store = environment.store
            let alice = try await Self.signIn(environment, "alice@example.com", on: van)
            _ = try await store.setDisabled(true, userID: alice.shift.userID, by: admin, now: Date())
            let shift = try #require(try await store.shifts(deviceID: van.id, visibleTo: admin, limit: 10)?.first)
            #expect(shift.id == alice.shift.id && shift.endReason == .userDisabled)
            #expect(try await store.shiftEvents(keyThumbprint: "van-key", after: 1, limit: 10)?.map(\.reason) == [.userDisabled])
        }
    }
}
