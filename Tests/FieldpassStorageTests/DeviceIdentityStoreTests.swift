import Foundation
import Testing
@testable import FieldpassDomain
@testable import FieldpassStorage
import StoreTestSupport

/// A device is one installation: matched by its `install_id`, never by name or platform.
@Suite("Device identity")
struct DeviceIdentityStoreTests {
    /// Registers and signs in; the sign-in's refresh token hash is `hash-<session id>`.
    static func signIn(_ environment: StoreTestEnvironment, installID: String?) async throws -> OnboardingSession {
        let (session, state) = try await environment.register(installID: installID)
        let taken = try #require(try await environment.store.consumeState(state, now: Date()))
        _ = try await environment.store.completeLogin(CompletedLogin.test(taken), now: Date())
        return session
    }

    @Test(arguments: StoreKind.allCases) func registrationsWithoutAnInstallationAreNewDevicesWhateverTheirName(
        _ kind: StoreKind
    )
        async throws
    {
        try await StoreTestEnvironment.with(store: kind) { environment in
            // One name and platform ("Pixel", "android") for both: two phones all the same.
            let first = try await Self.signIn(environment, installID: nil)
            let second = try await Self.signIn(environment, installID: nil)
            #expect(first.deviceID != second.deviceID)
            let devices = try await environment.store.devices(userID: first.userID, environmentID: "dev")
            #expect(Set(devices.map(\.id)) == [first.deviceID, second.deviceID])
            // Each keeps its own sign-in.
            #expect(try await environment.store.liveRefreshToken(hash: "hash-\(first.id)", now: Date()) != nil)
            #expect(try await environment.store.liveRefreshToken(hash: "hash-\(second.id)", now: Date()) != nil)
        }
    }

    @Test(arguments: StoreKind.allCases) func theSameInstallationIsOneDeviceAndItsNewSignInReplacesTheOldToken(
        _ kind: StoreKind
    )
        async throws
    {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let first = try await Self.signIn(environment, installID: "installation-aaaaaaaa")
            let other = try await Self.signIn(environment, installID: "installation-bbbbbbbb")
            let again = try await Self.signIn(environment, installID: "installation-aaaaaaaa")
            #expect(again.deviceID == first.deviceID)
            #expect(other.deviceID != first.deviceID)
            #expect(try await environment.store.liveRefreshToken(hash: "hash-\(first.id)", now: Date()) == nil, "superseded")
            #expect(try await environment.store.liveRefreshToken(hash: "hash-\(again.id)", now: Date()) != nil)
            #expect(try await environment.store.liveRefreshToken(hash: "hash-\(other.id)", now: Date()) != nil, "another installation")
        }
    }

    /// The audit log of one device's own activity, oldest first.
    static func activity(_ environment: StoreTestEnvironment, of session: OnboardingSession) async throws -> [String] {
        try await environment.store.auditLog(environmentID: "dev", filter: AuditFilter(personID: session.userID), before: nil, limit: 50)
            .filter { $0.after?["device_id"] == session.deviceID }.reversed().map(\.action)
    }

    @Test(arguments: StoreKind.allCases) func aDeviceIsCreatedOnceSignsInEachTimeAndRefreshesInTheLogOnceADay(
        _ kind: StoreKind
    ) async throws {
        try await StoreTestEnvironment.with(store: kind) { environment in
            let store = environment.store
            let now = Date()
            let (first, state) = try await environment.register(installID: "installation-audited")
            #expect(try await store.devices(userID: first.userID, environmentID: "dev").map(\.state) == [.registered])
            let taken = try #require(try await store.consumeState(state, now: now))
            var login = CompletedLogin.test(taken)
            login.refreshTokenExpiresAt = now.addingTimeInterval(3 * 86_400)
            login.refreshTokenMaxExpiresAt = now.addingTimeInterval(3 * 86_400)
            _ = try await store.completeLogin(login, now: now)
            #expect(try await store.devices(userID: first.userID, environmentID: "dev").map(\.state) == [.active])

            // Refreshed on the day of its sign-in, then twice on the next day.
            let tomorrow = (now.timeIntervalSince1970 / 86_400).rounded(.down) * 86_400 + 86_400 + 60
            for (old, new, at) in [
                ("hash-\(first.id)", "r1", now.timeIntervalSince1970), ("r1", "r2", tomorrow), ("r2", "r3", tomorrow + 900),
            ] {
                let rotation = RefreshRotation(oldHash: old, newHash: new, sealedSuccessor: nil, ttl: 2 * 86_400, grace: 0)
                #expect(try await store.rotateRefreshToken(rotation, now: Date(timeIntervalSince1970: at)) != .refused)
            }
            _ = try await Self.signIn(environment, installID: "installation-audited")

            #expect(
                try await Self.activity(environment, of: first) == ["device.create", "device.sign_in", "token.refresh", "device.sign_in"])
        }
    }
}
