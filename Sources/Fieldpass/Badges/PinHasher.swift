import Dispatch
import FieldpassDomain
import HTTPTypes
import Synchronization
import Tokens

/// Where PINs are hashed and checked: a badge sign-in's, and the temporary PIN of a badge
/// issue or PIN reset. scrypt takes about 50 ms of CPU and 16 MiB a hash: run on the threads
/// that serve every request (two on a two-core machine), a crew signing in at once, or an
/// admin resetting PINs, would hold up every company's requests for that long. Here the
/// hashes run one at a time on a thread of their own.
///
/// The thread is shared per environment, as ``ConcurrencyGate`` shares long-polls: at most
/// `share` hashes of one environment wait or run at once, and the next is refused at once
/// (`503`, `Retry-After`), before any work; and the thread takes the environments that wait in
/// turn, one hash each. So one company's badge tries, however many, never take another
/// company's place, and make its PIN check wait for at most one hash of theirs.
package final class PinHasher: PinHashing {
    private let thread = DispatchQueue(label: "fieldpass.pin-hash")
    private let jobs = Mutex(Jobs())
    /// Hashes one environment may have waiting or running at once.
    let share: Int

    package init(share: Int = 16) {
        self.share = share
    }

    /// An unknown badge's PIN (`stored` `nil`) is checked against ``decoy``.
    package func verify(
        _ pin: String, against stored: String?, for environmentID: String
    ) async throws -> (matched: Bool, checked: String) {
        try await run(for: environmentID) {
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

    package func make(_ pin: String, for environmentID: String) async throws -> String {
        try await run(for: environmentID) { try PinHash.make(pin) }
    }

    /// The hashes of `environmentID` waiting or running.
    func waitingCount(for environmentID: String) -> Int {
        jobs.withLock { $0.held[environmentID, default: 0] }
    }

    /// The hashes of every environment waiting or running.
    var waitingCount: Int { jobs.withLock { $0.held.values.reduce(0, +) } }

    /// Runs `work` on the hasher's thread in `environmentID`'s turn, or refuses at once when
    /// the environment's share is taken.
    func run<T: Sendable>(for environmentID: String, _ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let job: @Sendable () -> Void = { [self] in
                let result = Result { try work() }
                jobs.withLock { $0.held.releasePlace(of: environmentID) }
                continuation.resume(with: result)
            }
            // Claimed and queued at once: two callers never both take the last place, and the
            // queue's order is the order of the claims.
            let admitted = jobs.withLock { $0.enqueue(job, for: environmentID, share: share) }
            guard admitted else {
                continuation.resume(throwing: Self.busy)
                return
            }
            thread.async { [self] in jobs.withLock { $0.next() }?() }
        }
    }

    static let busy = APIError(
        .serviceUnavailable, OnboardingErrorCode.serverBusy, "Too many PINs of this company are being checked at once; try again shortly.",
        retryAfter: 1)

    /// The waiting hashes, by environment, and the order in which the environments take turns.
    private struct Jobs {
        var held: [String: Int] = [:]
        var waiting: [String: [@Sendable () -> Void]] = [:]
        var turns: [String] = []

        mutating func enqueue(_ job: @escaping @Sendable () -> Void, for key: String, share: Int) -> Bool {
            guard held[key, default: 0] < share else { return false }
            held[key, default: 0] += 1
            if waiting[key] == nil { turns.append(key) }
            waiting[key, default: []].append(job)
            return true
        }

        /// The next environment's first job; that environment's next one waits for its turn again.
        mutating func next() -> (@Sendable () -> Void)? {
            guard !turns.isEmpty else { return nil }
            let key = turns.removeFirst()
            guard var queue = waiting.removeValue(forKey: key), !queue.isEmpty else { return nil }
            let job = queue.removeFirst()
            if !queue.isEmpty {
                waiting[key] = queue
                turns.append(key)
            }
            return job
        }
    }
}
