import FieldpassDomain
import Foundation
import Hummingbird

/// A long-poll: the entries a read finds, waiting up to `wait` seconds for a first one, woken
/// by a store's change signal and looking again after its safety-net interval regardless,
/// until the instance drains. Each waiting poll takes a place of `places` (per key, and in
/// all), or is refused with `503`: each holds a connection and a task.
struct LongPoll: Sendable {
    let store: any StoreChanges
    let places: ConcurrencyGate
    /// A draining instance answers its long-polls at their next look, so that they do not
    /// hold its shutdown up.
    let readiness: Readiness

    func entries<Entry: Sendable>(
        wait: Int, placeKey: String, signal: ChangeSignal, _ read: @escaping @Sendable () async throws -> [Entry]
    ) async throws -> [Entry] {
        let poll = { [store, readiness] () async throws -> [Entry] in
            let deadline = ContinuousClock.now + .seconds(wait)
            while true {
                let generation = signal.generation
                let entries = try await read()
                let remaining = deadline - ContinuousClock.now
                if !entries.isEmpty || remaining <= .zero || readiness.phase == .draining { return entries }
                await signal.wait(atMost: min(remaining, store.safetyNetInterval), after: generation)
            }
        }
        guard wait > 0 else { return try await poll() }
        guard let entries = try await places.withPlace(for: placeKey, poll) else {
            throw APIError(
                .serviceUnavailable, IntegrationErrorCode.serverBusy,
                "Too many long-polls (of this environment, or in all) are waiting; try again shortly.", retryAfter: 1
            )
        }
        return entries
    }
}
