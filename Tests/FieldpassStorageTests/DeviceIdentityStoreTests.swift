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
}
