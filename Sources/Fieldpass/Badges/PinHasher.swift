import Dispatch
import HTTPTypes
import Synchronization
import Tokens

/// Where badge sign-ins hash and check PINs. scrypt takes about 50 ms of CPU and 16 MiB a
/// hash: run on the threads that serve every request (two on a two-core machine), a crew
/// signing in at once would hold up every company's requests for that long. Here the hashes
/// run one at a time on a thread of their own, and at most `maxWaiting` sign-ins wait for
/// it; the next is refused at once (`503`, `Retry-After`), before any work. So badge sign-ins
/// cost at most one core and one hash's memory, whatever their number.
final class PinHasher: Sendable {
    private let queue = DispatchQueue(label: "fieldpass.pin-hash")
    private let waiting = Mutex(0)
    let maxWaiting: Int

    init(maxWaiting: Int = 32) {
        self.maxWaiting = maxWaiting
    }

    /// Whether `pin` is the one `stored` was made of, and the hash it was checked against: an
    /// unknown badge's (`nil`) is checked against ``decoy``, which costs the same.
    func verify(_ pin: String, against stored: String?) async throws -> (matched: Bool, checked: String) {
        try await run {
            let checked = stored ?? Self.decoy
            return (PinHash.verify(pin, against: checked), checked)
        }
    }

    /// The PIN ``decoy`` is the hash of.
    static let decoyPin = "decoy"
    /// What an unknown badge's PIN is checked against, so that the time of the answer tells
    /// nothing. Made at the first check that needs it, on the hasher's thread, not at start-up,
    /// where every process (and every test's application) would pay a scrypt for it. Without
    /// randomness there is no decoy, and no badge sign-in either: its PIN hash fails too.
    private static let decoy = (try? PinHash.make(decoyPin)) ?? ""

    /// The stored form of a new PIN.
    func make(_ pin: String) async throws -> String {
        try await run { try PinHash.make(pin) }
    }

    /// The sign-ins hashing or waiting to.
    var waitingCount: Int { waiting.withLock { $0 } }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        // Claimed before the first suspension: two sign-ins never both take the last place.
        let admitted = waiting.withLock { count in
            guard count < maxWaiting else { return false }
            count += 1
            return true
        }
        guard admitted else {
            throw APIError(
                .serviceUnavailable, OnboardingErrorCode.serverBusy, "Too many badge sign-ins at once; try again shortly.",
                retryAfter: 1)
        }
        defer { waiting.withLock { $0 -= 1 } }
        return try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }
}
