import FieldpassDevice
import Foundation
import Testing
import Tokens

/// The offline handover against the real `fieldpass serve`: Ada signs in online once with her
/// badge, which leaves her permit on the van; the server stops; she takes the van over with
/// badge and PIN alone; the server comes back and the van's report turns her offline shift
/// into a real one, whose tokens the van then hands out. With either of the keys Fieldpass
/// signs with: the van checks an ES256 and an RS256 permit alike.
@Suite struct OfflineHandoverTests {
    @Test(arguments: SigningAlgorithm.allCases)
    func aShiftStartedWithTheServerStoppedBecomesARealShiftWhenItIsBack(_ algorithm: SigningAlgorithm) async throws {
        try await withServer(sharedDevices: "{offline_permit_ttl: 3600}", algorithm: algorithm) { server in
            let (code, _) = try await SharedDeviceTests.enrollment(server, name: "Van 3")
            let van = SharedDevice(
                server: server.url, key: SoftwareDPoPKey(), offlineStore: MemoryOfflineStore(),
                pinHashing: try ScryptParameters(cost: 1 << 10, blockSize: 8, parallelism: 1))
            _ = try await van.enroll(code: code)
            try await SharedDeviceTests.signIn(van, server, email: "ada@example.com")
            try await van.endShift()
            let output = try await server.command(["badges", "issue", "ada@example.com"])
            let badge = String(
                try #require(output.split(separator: "\n").first { $0.hasPrefix("Badge, shown this once: ") }?.split(separator: " ").last))
            let pin = String(try #require(output.split(separator: " ").first { $0.count == 9 && $0.hasSuffix(",") }?.dropLast()))
            let online = try await van.signIn(badge: badge, pin: pin, newPin: "38472910")

            server.kill()
            // No network: the temporary PIN is no longer hers, a wrong one counts, hers works.
            await #expect(throws: OfflineSignInError.wrongPin(attemptsLeft: 4)) { _ = try await van.signInOffline(badge: badge, pin: pin) }
            let offline = try await van.signInOffline(badge: badge, pin: "38472910")
            #expect(offline.email == "ada@example.com" && offline.offline && offline.role == "worker")
            await #expect(throws: FieldpassClientError.notSignedIn) { _ = try await van.client.accessToken() }

            try await server.start()
            let reconciled = try await van.reconcileOfflineShifts()
            let running = try #require(reconciled.running)
            guard case .accepted(let shiftID) = running.verdict else {
                Issue.record("the running offline shift was answered \(running.verdict)")
                return
            }
            #expect(running.tokensAdopted && running.shift == offline)
            let token = try await van.client.accessToken()
            #expect(try await Backend(server: server).isActive(token))
            #expect(try await van.currentShift?.shiftID == shiftID)
            #expect(try van.currentOfflineShift == nil)
            // Her online shift ended when the offline one started: its tokens are refused.
            #expect(try await !Backend(server: server).isActive(online.accessToken))
            // Sent again, nothing is left to send.
            #expect(try await van.reconcileOfflineShifts().shifts.isEmpty)
        }
    }
}
