import FieldpassDevice
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The library against the real `fieldpass serve`, its SQLite file and a loopback IdP: what
/// an app's developer relies on, each through Fieldpass's public API.
@Suite struct FieldpassClientTests {
    @Test func onboardsByLongPollAndSavesTheTokensBeforeHandingThemOut() async throws {
        try await withServer { server in
            let store = MemoryTokenStore()
            let client = FieldpassClient(server: server.url, store: store)
            let events = try await onboard(client, store: store, server: server, email: "ada@example.com")
            guard case .signedIn(let tokens) = events.first, case .realmInitialized(let path) = events.dropFirst().first else {
                Issue.record("events: \(events)")
                return
            }
            #expect(events == [.signedIn(tokens), .realmInitialized(path: path), .dataReady(path: path)])
            #expect(path.hasPrefix("/users/"))
            #expect(try await client.accessToken() == tokens.accessToken)
            #expect(try await Backend(server: server).isActive(tokens.accessToken))
        }
    }

    @Test func aServerRestartedMidOnboardingLosesNoEventAndRepeatsNone() async throws {
        try await withServer { server in
            let client = FieldpassClient(server: server.url, store: MemoryTokenStore())
            let onboarding = try await client.register(email: "grace@example.com", device: DeviceInfo(name: "Van 7", platform: "ios"))
            let seen = EventLog()
            let follower = Task {
                for try await event in onboarding.events { await seen.append(event) }
            }
            // Down while the device waits on a poll, and back before the person signs in.
            try await Task.sleep(for: .milliseconds(300))
            server.kill()
            try await Task.sleep(for: .seconds(1))
            try await server.start()
            #expect(try await HTTP.get(onboarding.loginURL).0 == 200)
            let path = try await seen.realmPath()
            // Down again between realm_initialized and data_ready.
            server.kill()
            try await server.start()
            try await Backend(server: server).markInitialized(path)
            try await follower.value
            let events = await seen.events
            guard case .signedIn(let tokens) = events.first else {
                Issue.record("events: \(events)")
                return
            }
            #expect(events == [.signedIn(tokens), .realmInitialized(path: path), .dataReady(path: path)])
        }
    }

    @Test func theLastEventIsAcknowledgedBeforeItIsHandedOut() async throws {
        try await withServer { server in
            let client = FieldpassClient(server: server.url, store: MemoryTokenStore(), session: ObservedRequests.session())
            let onboarding = try await client.register(email: "hedy@example.com")
            #expect(try await HTTP.get(onboarding.loginURL).0 == 200)
            var acknowledged = false
            for try await event in onboarding.events {
                if case .realmInitialized(let path) = event { try await Backend(server: server).markInitialized(path) }
                if case .dataReady = event {
                    // token 1, realm_initialized 2, data_ready 3: a poll past 3 acknowledges it.
                    let polls = ObservedRequests.polls(to: server.url)
                    #expect(polls.last?["after"] == "3" && polls.last?["wait"] == "0", "polls: \(polls)")
                    acknowledged = true
                }
            }
            #expect(acknowledged)
        }
    }

    @Test func aTokenTheStoreCouldNotSaveIsHandedOutOnTheNextAsk() async throws {
        try await withServer { server in
            let store = FailingFirstSaveStore()
            let client = FieldpassClient(server: server.url, store: store)
            let onboarding = try await client.register(email: "radia@example.com")
            #expect(try await HTTP.get(onboarding.loginURL).0 == 200)
            var events = onboarding.events.makeAsyncIterator()
            await #expect(throws: FailingFirstSaveStore.DiskFull.self) { try await events.next() }
            let next = try await events.next()
            guard case .signedIn(let tokens) = next else {
                Issue.record("after the failed save: \(String(describing: next))")
                return
            }
            #expect(await store.load() == tokens)
        }
    }

    @Test func twentyCallersAtExpiryShareOneRefresh() async throws {
        try await withServer { server in
            let (client, store, issued) = try await onboarded(server, email: "linus@example.com")
            await store.save(TokenSet(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: Date()))
            let backend = Backend(server: server)
            let before = try await backend.refreshGrants()["issued", default: 0]
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<20 { group.addTask { try await client.accessToken() } }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(try await backend.refreshGrants()["issued", default: 0] - before == 1)
            #expect(tokens.count == 1 && !tokens.contains(issued.accessToken))
            let refreshed = try #require(await store.load())
            #expect(refreshed.refreshToken != issued.refreshToken && tokens == [refreshed.accessToken])
            // Had a second refresh used the old token, Fieldpass would have cut the device off.
            #expect(try await backend.isActive(refreshed.accessToken))
        }
    }

    @Test func callersOfASlowStoreShareOneRefreshToo() async throws {
        try await withServer { server in
            let (_, _, issued) = try await onboarded(server, email: "margaret@example.com")
            let store = SlowTokenStore(TokenSet(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: Date()))
            let client = FieldpassClient(server: server.url, store: store)
            let backend = Backend(server: server)
            let before = try await backend.refreshGrants()
            let answers = await withTaskGroup(of: Result<String, any Error>.self) { group in
                for _ in 0..<20 {
                    group.addTask {
                        do { return .success(try await client.accessToken()) } catch { return .failure(error) }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            let tokens = Set(answers.compactMap { try? $0.get() })
            #expect(answers.allSatisfy { (try? $0.get()) != nil }, "answers: \(answers)")
            #expect(tokens.count == 1 && !tokens.contains(issued.accessToken))
            // Every refresh that reached Fieldpass, refused ones included: a second one would
            // have used the rotated-away token and cut the device off.
            let grants = try await backend.refreshGrants().merging(before) { $0 - $1 }
            #expect(grants.values.reduce(0, +) == 1 && grants["issued"] == 1, "refresh grants: \(grants)")
            #expect(await store.saves == 1)
            #expect(await store.clears == 0)
            let saved = try #require(try await store.load())
            #expect(tokens == [saved.accessToken])
            #expect(try await backend.isActive(saved.accessToken))
        }
    }

    @Test func aRefreshTokenSomeoneElseUsedRevokesTheDevice() async throws {
        try await withServer { server in
            let (client, store, issued) = try await onboarded(server, email: "ken@example.com")
            #expect(try await Backend(server: server).refresh(issued.refreshToken) == 200)
            await store.save(TokenSet(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: Date()))
            await #expect(throws: FieldpassClientError.deviceRevoked) { try await client.accessToken() }
            #expect(await store.load() == nil)
            await #expect(throws: FieldpassClientError.notSignedIn) { try await client.accessToken() }
            #expect(try await !Backend(server: server).isActive(issued.accessToken))
        }
    }

    @Test func oneInstallationIsOneDeviceWhoseNewSignInReplacesItsOldToken() async throws {
        try await withServer { server in
            let store = MemoryTokenStore()
            let client = FieldpassClient(server: server.url, store: store)
            _ = try await onboard(client, store: store, server: server, email: "grace@example.com")
            let first = try #require(await store.load())
            let installation = try #require(await store.loadInstallationID())
            // A new launch of the same installation: a new client on the same store.
            let relaunched = FieldpassClient(server: server.url, store: store)
            _ = try await onboard(relaunched, store: store, server: server, email: "grace@example.com")
            let second = try #require(await store.load())
            // Another installation of the app, named the same ("Van 12", ios), is another device.
            let otherStore = MemoryTokenStore()
            let other = FieldpassClient(server: server.url, store: otherStore)
            _ = try await onboard(other, store: otherStore, server: server, email: "grace@example.com")
            let elsewhere = try #require(await otherStore.load())

            #expect(await store.loadInstallationID() == installation)
            #expect(installation.count == 43 && installation.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
            #expect(try Self.claim("device_id", of: second.accessToken) == Self.claim("device_id", of: first.accessToken))
            #expect(try Self.claim("device_id", of: elsewhere.accessToken) != Self.claim("device_id", of: first.accessToken))
            let backend = Backend(server: server)
            #expect(try await backend.refresh(first.refreshToken) == 400, "the earlier sign-in's token was replaced")
            #expect(try await backend.refresh(elsewhere.refreshToken) == 200, "another installation keeps its own")
        }
    }

    /// A claim of an access token, read from its payload (the signature is the server's to check).
    static func claim(_ name: String, of token: String) throws -> String? {
        var payload = String(token.split(separator: ".").dropFirst().first ?? "")
            .replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let object = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: payload)))
        return (object as? [String: Any])?[name] as? String
    }

    @Test func signingOutMakesIntrospectionSayInactive() async throws {
        try await withServer { server in
            let (client, store, tokens) = try await onboarded(server, email: "barbara@example.com")
            let backend = Backend(server: server)
            #expect(try await backend.isActive(tokens.accessToken))
            try await client.signOut()
            #expect(await store.load() == nil)
            #expect(try await !backend.isActive(tokens.accessToken))
            #expect(try await backend.refresh(tokens.refreshToken) == 400)
            // Signed out already: nothing to revoke, nothing to fail.
            try await client.signOut()
        }
    }

    @Test func aSignOutDuringARefreshRevokesTheRefreshedTokensAndLeavesNoneInTheStore() async throws {
        try await withServer { server in
            let (_, _, issued) = try await onboarded(server, email: "mary@example.com")
            let store = HeldSaveStore(TokenSet(accessToken: issued.accessToken, refreshToken: issued.refreshToken, expiresAt: Date()))
            let client = FieldpassClient(server: server.url, store: store)
            let asking = Task { try await client.accessToken() }
            // Fieldpass has rotated the refresh token; the new pair is being saved.
            try await store.saveBegun()
            let signingOut = Task { try await client.signOut() }
            // A sign-out that does not wait for the refresh clears the store at once; one that
            // waits leaves it alone until the save is let go.
            try await store.release(whenClearedOrAfter: .seconds(1))
            let handedOut = try await asking.value
            try await signingOut.value

            // Compared, never shown: a failure prints no token.
            let left = await store.load() != nil
            #expect(!left, "the refreshed tokens were saved after the sign-out cleared the store")
            #expect(await store.clears == 1)
            await #expect(throws: FieldpassClientError.notSignedIn) { _ = try await client.accessToken() }
            let refreshed = handedOut != issued.accessToken
            let active = try await Backend(server: server).isActive(handedOut)
            #expect(refreshed && !active, "the refreshed device was not revoked")
        }
    }

    @Test func signingOutWithoutTheServerStillForgetsTheTokens() async throws {
        try await withServer { server in
            let (client, store, _) = try await onboarded(server, email: "alan@example.com")
            server.kill()
            await #expect(throws: URLError.self) { try await client.signOut() }
            #expect(await store.load() == nil)
        }
    }

    @Test func aServerThatIsNotFieldpassIsAnUnexpectedAnswer() async throws {
        try await MiniIdP.run { issuer in
            let client = FieldpassClient(server: try #require(URL(string: issuer)), store: MemoryTokenStore())
            await #expect(throws: FieldpassClientError.unexpectedResponse(status: 404)) {
                _ = try await client.register(email: "ada@example.com")
            }
        }
    }

    @Test func aRefusedSignInEndsTheEventsWithItsCode() async throws {
        try await withServer { server in
            let client = FieldpassClient(server: server.url, store: MemoryTokenStore(), session: ObservedRequests.session())
            let onboarding = try await client.register(email: "refuse@example.com")
            #expect(try await HTTP.get(onboarding.loginURL).0 == 400)
            await #expect(
                throws: OnboardingError.loginFailed(code: "access_denied", description: "The identity provider refused the sign-in.")
            ) {
                for try await _ in onboarding.events {}
            }
            // login_failed is the session's first event: acknowledged by a poll past 1 before it was thrown.
            let polls = ObservedRequests.polls(to: server.url)
            #expect(polls.last?["after"] == "1" && polls.last?["wait"] == "0", "polls: \(polls)")
        }
    }

    @Test func aSessionNobodySignsInToExpires() async throws {
        try await withServer(sessionTTL: 1) { server in
            let client = FieldpassClient(server: server.url, store: MemoryTokenStore())
            let onboarding = try await client.register(email: "edsger@example.com")
            await #expect(throws: OnboardingError.sessionExpired) {
                for try await _ in onboarding.events {}
            }
        }
    }

    @Test func pollsTheServerRefusesForNowAreTriedAgainAndLoseNothing() async throws {
        // One poll at a time, refilled every second: most polls of the flow first get a 429.
        try await withServer(limits: "{events: {per_minute: 60, burst: 1}}") { server in
            let store = MemoryTokenStore()
            let client = FieldpassClient(server: server.url, store: store)
            let events = try await onboard(client, store: store, server: server, email: "frances@example.com")
            guard case .signedIn(let tokens) = events.first, case .realmInitialized(let path) = events.dropFirst().first else {
                Issue.record("events: \(events)")
                return
            }
            #expect(events == [.signedIn(tokens), .realmInitialized(path: path), .dataReady(path: path)])
        }
    }

    @Test func aServerGoneForGoodEndsTheEventsOnceTheSessionHasExpired() async throws {
        try await withServer(sessionTTL: 1) { server in
            let client = FieldpassClient(server: server.url, store: MemoryTokenStore())
            let onboarding = try await client.register(email: "john@example.com")
            server.kill()
            await #expect(throws: URLError.self) {
                for try await _ in onboarding.events {}
            }
            #expect(Date() >= onboarding.expiresAt)
        }
    }

    @Test func aRefusedRegistrationSaysWhy() async throws {
        try await withServer { server in
            let client = FieldpassClient(server: server.url, store: MemoryTokenStore())
            await #expect(
                throws: FieldpassClientError.server(
                    status: 404, error: "unknown_domain", description: "No environment is configured for this email domain.")
            ) {
                _ = try await client.register(email: "ada@elsewhere.example")
            }
        }
    }
}

/// The events a follower has seen so far.
actor EventLog {
    private(set) var events: [OnboardingEvent] = []

    func append(_ event: OnboardingEvent) {
        events.append(event)
    }

    /// The realm of the `realmInitialized` event, once it has come (within 20 s).
    func realmPath() async throws -> String {
        for _ in 0..<400 {
            for case .realmInitialized(let path) in events { return path }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CancellationError()
    }
}
