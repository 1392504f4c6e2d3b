package import Foundation
import Synchronization

/// This instance's ``RevocationSet``, kept current by the store's announcements, and whether
/// it may answer right now (see ``StandingFreshness``).
///
/// Bearer checks and introspection ask it first; when it cannot answer (not loaded yet, not
/// confirmed fresh within the bound, or a person it does not know) they read the store, and a
/// person read so is remembered unless a change to anyone was applied meanwhile.
public final class LiveRevocations: Sendable {
    /// What the set says of a token's standing or a person's reach.
    package enum Lookup<Known: Equatable>: Equatable {
        case known(Known)
        /// Read the store. With a generation, what was read may be remembered through
        /// `remember(_:ifUnchangedSince:)`.
        case unknown(generation: Int?)
    }

    private struct State {
        package var set: RevocationSet?
        package var freshness = StandingFreshness()
        /// Moves at every change to a person and every reload, so that a record read from the
        /// store before one is not remembered after it.
        package var generation = 0
        /// Who waits for which heartbeat, by a number of each wait's own.
        package var waiters: [Int: (heartbeat: Int, continuation: CheckedContinuation<Void, Never>)] = [:]
        package var nextWaiterID = 0
    }

    private let state = Mutex(State())

    package init() {}

    package func lookup(
        jti: String, userID: String?, deviceID: String?, environmentID: String, now: ContinuousClock.Instant
    ) -> Lookup<TokenStanding> {
        lookup(at: now) { $0.standing(jti: jti, userID: userID, deviceID: deviceID, environmentID: environmentID) }
    }

    /// What the person may reach, for `/me` and the tokens a refresh issues: as stale as a
    /// token's standing may be, no more.
    package func accessFacts(userID: String, environmentID: String, now: ContinuousClock.Instant) -> Lookup<AccessFacts> {
        lookup(at: now) { $0.accessFacts(userID: userID, environmentID: environmentID) }
    }

    private func lookup<Known>(at now: ContinuousClock.Instant, _ answer: (RevocationSet) -> Known?) -> Lookup<Known> {
        state.withLock { state in
            guard let set = state.set, state.freshness.isTrusted(at: now) else { return .unknown(generation: nil) }
            if let known = answer(set) { return .known(known) }
            return .unknown(generation: state.generation)
        }
    }

    /// Keeps a record the store gave, unless a change was applied since `generation`.
    package func remember(_ user: UserRecord, ifUnchangedSince generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.set?.remember(user)
        }
    }

    /// Keeps what a person may reach as the store gave it, unless a change was applied since
    /// `generation`.
    package func remember(_ facts: AccessFacts, ifUnchangedSince generation: Int) {
        state.withLock { state in
            guard state.generation == generation else { return }
            state.set?.remember(facts)
        }
    }

    /// Starts over from a set read whole from the store.
    package func replace(with set: RevocationSet) {
        state.withLock { state in
            state.set = set
            state.generation += 1
        }
    }

    package func apply(_ change: StandingChange) {
        state.withLock { state in
            state.set?.apply(change)
            if case .user = change { state.generation += 1 }
        }
    }

    /// Whether the set may answer at `now`.
    package func isTrusted(at now: ContinuousClock.Instant) -> Bool {
        state.withLock { $0.freshness.isTrusted(at: now) }
    }

    /// Numbers a heartbeat about to be sent.
    package func heartbeatSent(at now: ContinuousClock.Instant) -> Int {
        state.withLock { $0.freshness.send(at: now) }
    }

    /// A heartbeat came back: the set is current as of when it was sent.
    package func heartbeatReceived(_ number: Int, now: Date) {
        let woken = state.withLock { state in
            state.freshness.received(number)
            state.set?.dropExpired(now: now)
            let due = state.waiters.filter { state.freshness.hasConfirmed($0.value.heartbeat) }
            for id in due.keys { state.waiters[id] = nil }
            return due.values.map(\.continuation)
        }
        for waiter in woken { waiter.resume() }
    }

    /// Returns when heartbeat `number` came back, or after `duration`; in the latter case the
    /// set is distrusted until a later heartbeat comes back. The timer is a child task, ended
    /// with the wait.
    package func waitForHeartbeat(_ number: Int, atMost duration: Duration) async {
        await Suspension.wait(atMost: duration) { await self.heartbeat(number) }
        state.withLock { state in
            if !state.freshness.hasConfirmed(number) { state.freshness.distrust() }
        }
    }

    /// Returns when heartbeat `number` came back, at a distrust, or when the task is cancelled.
    private func heartbeat(_ number: Int) async {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        await Suspension.park { continuation in
            state.withLock { state in
                guard !state.freshness.hasConfirmed(number), !Task.isCancelled else { return false }
                state.waiters[id] = (number, continuation)
                return true
            }
        } unpark: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation
        }
    }

    /// Announcements may have been missed: the store answers until the set is confirmed again.
    package func distrust() {
        let woken = state.withLock { state in
            state.freshness.distrust()
            defer { state.waiters = [:] }
            return state.waiters.values.map(\.continuation)
        }
        for waiter in woken { waiter.resume() }
    }
}
