import FieldpassDomain
import Foundation
import Hummingbird

/// A long-poll: the entries a read finds, waiting up to `wait` seconds for a first one.
///
/// A waiting poll costs nothing while nothing changes: it reads again only when the store's
/// change signal wakes it (which covers every change the store hears of), and after the
/// store's safety-net interval (seconds) regardless. It answers with what it has when the
/// instance begins draining, so that it does not hold the shutdown up, or when `ending` is
/// signalled (a newer poll took its place). Whoever calls it bounds how many wait
/// (``ConcurrencyGate``, ``DeviceLongPolls``): each holds a connection and a task.
struct LongPoll: Sendable {
    let store: any StoreChanges
    let readiness: Readiness

    /// What a poll that finds no place is answered.
    static let busy = APIError(
        .serviceUnavailable, IntegrationErrorCode.serverBusy,
        "Too many long-polls (of this environment, or in all) are waiting; try again shortly.", retryAfter: 1
    )

    /// `ending`, when given, is this poll's own: its first signal ends the poll.
    func entries<Entry: Sendable>(
        wait: Int, signal: ChangeSignal, endedBy ending: ChangeSignal? = nil, _ read: () async throws -> [Entry]
    ) async throws -> [Entry] {
        let deadline = ContinuousClock.now + .seconds(wait)
        while true {
            var wakers = [(signal, signal.generation), (readiness.draining, readiness.draining.generation)]
            if let ending { wakers.append((ending, 0)) }
            let entries = try await read()
            let remaining = deadline - ContinuousClock.now
            let ended = (ending?.generation ?? 0) > 0 || readiness.phase == .draining
            guard entries.isEmpty, remaining > .zero, !ended else { return entries }
            await ChangeSignal.wait(atMost: min(remaining, store.safetyNetInterval), forAnyOf: wakers)
        }
    }
}
