import FieldpassDevice
import Foundation
import Testing

/// `SharedDevice` against the real `fieldpass serve`: the code an operator was shown enrolls
/// the device's key once.
@Suite struct SharedDeviceTests {
    /// A code from `fieldpass shared-devices enroll`, and the device id it printed.
    static func enrollment(_ server: RunningFieldpass, name: String) async throws -> (code: String, deviceID: String) {
        let output = try await server.command(["shared-devices", "enroll", "--name", name])
        let lines = output.split(separator: "\n").map(String.init)
        let code = try #require(lines.first { $0.hasPrefix("Enrollment code, shown this once: ") }?.split(separator: " ").last, "\(output)")
        let named = try #require(lines.first { $0.hasPrefix("\(name) (") }, "\(output)")
        let deviceID = try #require(named.split(separator: "(").dropFirst().first?.split(separator: ")").first, "\(output)")
        return (String(code), String(deviceID))
    }

    @Test(arguments: [nil, "{nonce: true}"]) func aCodeEnrollsTheDevicesKeyOnce(dpop: String?) async throws {
        try await withServer(dpop: dpop) { server in
            let (code, deviceID) = try await Self.enrollment(server, name: "Van 12")
            let van = SharedDevice(server: server.url, key: SoftwareDPoPKey())
            // As a person types it off the console: lower case, spaces for dashes.
            let identity = try await van.enroll(code: code.lowercased().replacingOccurrences(of: "-", with: " "))
            #expect(identity.deviceID == deviceID && identity.environment == "dev")

            let other = SharedDevice(server: server.url, key: SoftwareDPoPKey())
            let refused = await #expect(throws: FieldpassClientError.self) { _ = try await other.enroll(code: code) }
            guard case .server(400, "invalid_grant", _) = refused else {
                Issue.record("a used code was answered \(String(describing: refused))")
                return
            }
        }
    }

    /// A worker signs in on `van` as on a personal phone: the sign-in page, then the realm filled.
    static func signIn(_ van: SharedDevice, _ server: RunningFieldpass, email: String) async throws {
        let onboarding = try await van.signIn(email: email, device: DeviceInfo(name: "Van 7", platform: "android"))
        #expect(try await HTTP.get(onboarding.loginURL).0 == 200)
        for try await event in onboarding.events {
            if case .realmInitialized(let path) = event { try await Backend(server: server).markInitialized(path) }
        }
    }

    @Test func twoWorkersInTurnAndEveryAppHearsEachShiftOnceAcrossARestart() async throws {
        try await withServer { server in
            let (code, _) = try await Self.enrollment(server, name: "Van 7")
            let van = SharedDevice(server: server.url, key: SoftwareDPoPKey())
            _ = try await van.enroll(code: code)
            #expect(try await van.currentShift == nil)
            // Another app on the device follows the shifts from the start.
            let follower = Task {
                var seen: [ShiftChange] = []
                for try await change in van.changes() {
                    seen.append(change)
                    if seen.count == 3 { break }
                }
                return seen
            }

            try await Self.signIn(van, server, email: "ada@example.com")
            let ada = try #require(try await van.currentShift)
            #expect(ada.email == "ada@example.com")
            let adasToken = try await van.client.accessToken()
            #expect(try await Backend(server: server).isActive(adasToken))

            // The server restarts while the follower waits; Bob signs in without Ada signing out.
            server.kill()
            try await server.start()
            try await Self.signIn(van, server, email: "bob@example.com")
            let bob = try #require(try await van.currentShift)
            #expect(bob.email == "bob@example.com" && bob.shiftID != ada.shiftID)
            #expect(try await !Backend(server: server).isActive(adasToken))

            let seen = try await follower.value
            #expect(seen.map(\.seq) == [1, 2, 3])
            #expect(seen.map(\.kind) == [.shiftStarted, .shiftEnded(reason: "next_worker"), .shiftStarted])
            #expect(seen.map(\.shiftID) == [ada.shiftID, ada.shiftID, bob.shiftID])

            // Bob signs out: his tokens are forgotten and refused, and a follower resuming after
            // the third change hears only that.
            let bobsToken = try await van.client.accessToken()
            try await van.endShift()
            #expect(try await van.currentShift == nil)
            await #expect(throws: FieldpassClientError.notSignedIn) { _ = try await van.client.accessToken() }
            #expect(try await !Backend(server: server).isActive(bobsToken))
            var resumed = van.changes(after: 3).makeAsyncIterator()
            let ended = try await resumed.next()
            #expect(ended?.seq == 4 && ended?.kind == .shiftEnded(reason: "signed_out") && ended?.email == "bob@example.com")
        }
    }

    @Test func aBadgeAndPinStartAShiftAndTheErrorsSayWhatTheWorkerCanDo() async throws {
        try await withServer { server in
            let (code, _) = try await Self.enrollment(server, name: "Van 9")
            let van = SharedDevice(server: server.url, key: SoftwareDPoPKey())
            _ = try await van.enroll(code: code)
            // Ada is known from a sign-in at the IdP; the CLI issues her badge.
            try await Self.signIn(van, server, email: "ada@example.com")
            try await van.endShift()
            let output = try await server.command(["badges", "issue", "ada@example.com"])
            let badge = try #require(
                output.split(separator: "\n").first { $0.hasPrefix("Badge, shown this once: ") }?.split(separator: " ").last)
            let pin = try #require(output.split(separator: " ").first { $0.count == 9 && $0.hasSuffix(",") }?.dropLast())

            await #expect(throws: BadgeSignInError.pinChangeRequired) { _ = try await van.signIn(badge: String(badge), pin: String(pin)) }
            await #expect(throws: BadgeSignInError.newPinRefused(rule: .run, length: 8)) {
                _ = try await van.signIn(badge: String(badge), pin: String(pin), newPin: "12345678")
            }
            await #expect(throws: BadgeSignInError.newPinRefused(rule: .length, length: 8)) {
                _ = try await van.signIn(badge: String(badge), pin: String(pin), newPin: "3847")
            }
            let tokens = try await van.signIn(badge: String(badge), pin: String(pin), newPin: "38472910")
            #expect(try await van.client.accessToken() == tokens.accessToken)
            #expect(try await van.currentShift?.email == "ada@example.com")
            await #expect(throws: BadgeSignInError.wrongPin(attemptsLeft: 4)) {
                _ = try await van.signIn(badge: String(badge), pin: "11112222")
            }
            for _ in 0..<3 { _ = try? await van.signIn(badge: String(badge), pin: "11112222") }
            await #expect(throws: BadgeSignInError.badgeLocked) { _ = try await van.signIn(badge: String(badge), pin: "11112222") }
            let refused = await #expect(throws: FieldpassClientError.self) {
                _ = try await van.signIn(badge: "fpb_nothing", pin: "38472910")
            }
            guard case .server(401, "invalid_grant", _) = refused else {
                Issue.record("an unknown badge was answered \(String(describing: refused))")
                return
            }
        }
    }

    @Test func anUnenrolledDeviceIsToldSoAndForgetsTheShift() async throws {
        try await withServer { server in
            let (code, deviceID) = try await Self.enrollment(server, name: "Van 3")
            let store = MemoryTokenStore()
            let van = SharedDevice(server: server.url, key: SoftwareDPoPKey(), store: store)
            _ = try await van.enroll(code: code)
            try await Self.signIn(van, server, email: "ada@example.com")
            // An app follows the shifts: it hears Ada's start, then waits for the next change.
            let (heard, hearing) = AsyncStream.makeStream(of: ShiftChange.self)
            let follower = Task {
                defer { hearing.finish() }
                for try await change in van.changes() { hearing.yield(change) }
            }
            var changes = heard.makeAsyncIterator()
            #expect(await changes.next()?.kind == .shiftStarted)

            let output = try await server.command(["shared-devices", "unenroll", deviceID])
            #expect(output.contains("Unenrolled Van 3 (\(deviceID))"), "\(output)")
            // The follower ends with notEnrolled, not with a shiftEnded it could never hear.
            await #expect(throws: FieldpassClientError.notEnrolled) { try await follower.value }
            #expect(await changes.next() == nil)
            #expect(try await store.load() == nil)
            await #expect(throws: FieldpassClientError.notEnrolled) { _ = try await van.currentShift }
            await #expect(throws: FieldpassClientError.notEnrolled) { try await van.endShift() }
        }
    }
}
