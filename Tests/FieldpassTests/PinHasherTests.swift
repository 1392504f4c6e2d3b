import Dispatch
import FieldpassDomain
import Foundation
import Hummingbird
import Synchronization
import Testing
@testable import Fieldpass

@Suite("PIN hasher")
struct PinHasherTests {
    @Test func aPinMatchesItsOwnHashAndAnUnknownBadgeIsCheckedAgainstTheDecoy() async throws {
        let hasher = PinHasher()
        let stored = try await hasher.make("40718263", for: "acme")
        #expect(try await hasher.verify("40718263", against: stored, for: "acme") == (true, stored))
        #expect(try await hasher.verify("40718264", against: stored, for: "acme").matched == false)
        let decoy = try await hasher.verify(PinHasher.decoyPin, against: nil, for: "acme")
        #expect(decoy.matched && decoy.checked.hasPrefix("scrypt$"), "an unknown badge's PIN is checked against the decoy")
        #expect(try await hasher.verify("40718263", against: nil, for: "acme") == (false, decoy.checked), "one decoy, made once")
        #expect(hasher.waitingCount == 0)
    }

    @Test func pastItsShareAnEnvironmentIsRefusedAtOnceWhileAnotherStillGetsItsPlace() async throws {
        let hasher = PinHasher(share: 1)
        let gate = DispatchSemaphore(value: 0)
        // Acme's one place, held by work that waits for the gate on the hasher's thread.
        let holder = Task { try await hasher.run(for: "acme") { gate.wait() } }
        while hasher.waitingCount(for: "acme") == 0 { await Task.yield() }
        do {
            _ = try await hasher.make("40718263", for: "acme")
            Issue.record("a hash past acme's share was let in")
        } catch let error as APIError {
            #expect(error.status == .serviceUnavailable && error.code == "server_busy" && error.headers[.retryAfter] == "1")
        }
        // Globex's PIN waits for its turn, refused by nothing acme does.
        let other = Task { try await hasher.make("40718263", for: "globex") }
        while hasher.waitingCount(for: "globex") == 0 { await Task.yield() }
        gate.signal()
        try await holder.value
        #expect(try await other.value.hasPrefix("scrypt$"))
        #expect(hasher.waitingCount == 0)
        #expect(try await hasher.make("40718263", for: "acme").hasPrefix("scrypt$"), "acme's place came back")
    }

    @Test func theEnvironmentsTakeTurnsSoOneCompanysQueueNeverGoesFirstWhole() async throws {
        let hasher = PinHasher(share: 4)
        let gate = DispatchSemaphore(value: 0)
        let order = Ran()
        let holder = Task {
            try await hasher.run(for: "acme") {
                order.add("acme 1")
                gate.wait()
            }
        }
        while order.names.isEmpty { await Task.yield() }
        // Acme queues two more while its first holds the thread; then globex queues one.
        var queued: [Task<Void, any Error>] = []
        for (environment, name) in [("acme", "acme 2"), ("acme", "acme 3"), ("globex", "globex 1")] {
            let before = hasher.waitingCount(for: environment)
            queued.append(Task { try await hasher.run(for: environment) { order.add(name) } })
            while hasher.waitingCount(for: environment) == before { await Task.yield() }
        }
        gate.signal()
        try await holder.value
        for task in queued { try await task.value }
        #expect(order.names == ["acme 1", "acme 2", "globex 1", "acme 3"])
    }

    @Test func aNewPinIsHashedOnlyAfterThePinMatchedATemporaryOne() async throws {
        let hasher = PinHasher()
        let pinHash = try await hasher.make("40718263", for: "acme")
        let temporary = BadgeRecord(
            id: "b", userID: "w", environmentID: "acme", badgeHash: "bh", pinHash: pinHash, pinTemporary: true, issuedAt: Date(),
            expiresAt: Date() + 3600)
        var own = temporary
        own.pinTemporary = false

        func check(_ pin: String, _ badge: BadgeRecord?) async throws -> PinCheck {
            try await PinCheck.check(pin, newPin: "59203817", badge: badge, environmentID: "acme", on: hasher)
        }
        let wrong = try await check("11112222", temporary)
        #expect(!wrong.matched && wrong.checked == pinHash && wrong.newPinHash == nil, "a wrong PIN costs no second hash")
        let unknown = try await check("40718263", nil)
        #expect(!unknown.matched && unknown.checked != pinHash && unknown.newPinHash == nil, "nor does an unknown badge")
        let ownPin = try await check("40718263", own)
        #expect(ownPin.matched && ownPin.newPinHash == nil, "nor the worker's own PIN")
        let first = try await check("40718263", temporary)
        #expect(first.matched && first.checked == pinHash)
        let newPinHash = try #require(first.newPinHash)
        #expect(try await hasher.verify("59203817", against: newPinHash, for: "acme").matched)
    }

    /// The names of the work the hasher ran, in order.
    final class Ran: Sendable {
        private let ran = Mutex<[String]>([])
        func add(_ name: String) { ran.withLock { $0.append(name) } }
        var names: [String] { ran.withLock { $0 } }
    }
}
