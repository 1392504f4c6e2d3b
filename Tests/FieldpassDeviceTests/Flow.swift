import FieldpassDevice
import Foundation
import Testing
import Tokens

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One server and IdP of the test's own; `dpop` is the configuration's `dpop` section, as YAML
/// flow (`{nonce: true}`), when the test needs one.
func withServer(
    sessionTTL: Int = 600, limits: String = "{}", dpop: String? = nil, sharedDevices: String? = nil,
    algorithm: SigningAlgorithm = .es256, _ body: @escaping @Sendable (RunningFieldpass) async throws -> Void
) async throws {
    try await MiniIdP.run { issuer in
        let server = try await RunningFieldpass(
            issuer: issuer, sessionTTL: sessionTTL, limits: limits, dpop: dpop, sharedDevices: sharedDevices, algorithm: algorithm)
        defer { server.remove() }
        try await body(server)
    }
}

/// A client that has onboarded `email` (its registration proven by `dpopKey`, if given), its
/// store and the tokens it got.
func onboarded(
    _ server: RunningFieldpass, email: String, dpopKey: (any DPoPKey)? = nil, session: URLSession = .shared
) async throws -> (FieldpassClient, MemoryTokenStore, TokenSet) {
    let store = MemoryTokenStore()
    let client = FieldpassClient(server: server.url, store: store, dpopKey: dpopKey, session: session)
    _ = try await onboard(client, store: store, server: server, email: email)
    return (client, store, try #require(await store.load()))
}

/// A whole onboarding: register, sign in in the "browser", and fill the realm as the backend
/// would. Each `signedIn` event's tokens must be in `store` by the time the event comes.
func onboard(
    _ client: FieldpassClient, store: MemoryTokenStore, server: RunningFieldpass, email: String
) async throws -> [OnboardingEvent] {
    let onboarding = try await client.register(email: email, device: DeviceInfo(name: "Van 12", platform: "ios"))
    #expect(try await HTTP.get(onboarding.loginURL).0 == 200)
    var events: [OnboardingEvent] = []
    for try await event in onboarding.events {
        events.append(event)
        if case .signedIn(let tokens) = event { #expect(await store.load() == tokens) }
        if case .realmInitialized(let path) = event { try await Backend(server: server).markInitialized(path) }
    }
    return events
}
