import Dispatch
import Hummingbird
import Testing
@testable import Fieldpass

@Suite("PIN hasher")
struct PinHasherTests {
    @Test func aPinMatchesItsOwnHashAndAnUnknownBadgeIsCheckedAgainstTheDecoy() async throws {
        let hasher = PinHasher()
        let stored = try await hasher.make("40718263")
        #expect(try await hasher.verify("40718263", against: stored) == (true, stored))
        #expect(try await hasher.verify("40718264", against: stored).matched == false)
        let decoy = try await hasher.verify(PinHasher.decoyPin, against: nil)
        #expect(decoy.matched && decoy.checked.hasPrefix("scrypt$"), "an unknown badge's PIN is checked against the decoy")
        #expect(try await hasher.verify("40718263", against: nil) == (false, decoy.checked), "one decoy, made once")
        #expect(hasher.waitingCount == 0)
    }

    @Test func pastItsWaitingPlacesASignInIsRefusedAtOnceAndThePlaceComesBack() async throws {
        let hasher = PinHasher(maxWaiting: 1)
        let gate = DispatchSemaphore(value: 0)
        // The one place, held by work that waits for the gate on the hasher's thread.
        let holder = Task { try await hasher.run { gate.wait() } }
        while hasher.waitingCount == 0 { await Task.yield() }
        do {
            _ = try await hasher.make("40718263")
            Issue.record("a sign-in past the waiting places was let in")
        } catch let error as APIError {
            #expect(error.status == .serviceUnavailable && error.code == "server_busy" && error.headers[.retryAfter] == "1")
        }
        gate.signal()
        try await holder.value
        #expect(hasher.waitingCount == 0)
        #expect(try await hasher.make("40718263").hasPrefix("scrypt$"))
    }
}
