/// How far a ``RevocationSet`` fed by announcements can be trusted, proven by heartbeats.
///
/// An instance announces numbered heartbeats on the same channel as the changes. The channel
/// delivers in commit order, so when the listener has applied heartbeat `n`, every change
/// committed before `n` was sent is applied too: the set is current as of that moment. The set
/// answers only while that moment is at most ``bound`` ago; a stalled, lost or silently dead
/// listening connection therefore costs at most ``bound`` of staleness before the store
/// answers again. Pure logic: the caller passes the clock's readings.
package struct StandingFreshness: Sendable {
    package typealias Instant = ContinuousClock.Instant

    /// The longest a revocation made anywhere may go unnoticed by an instance.
    package static let bound: Duration = .seconds(1)
    /// How often heartbeats are sent: several per bound, so one slow beat does not distrust.
    package static let heartbeatInterval: Duration = .milliseconds(200)

    private var lastSent = 0
    /// When each heartbeat not yet seen back was sent, by number.
    private var sent: [Int: Instant] = [:]
    /// The highest heartbeat seen back, and when it was sent.
    package private(set) var confirmed: (number: Int, sentAt: Instant)?

    /// Numbers a heartbeat about to be sent at `now`.
    package mutating func send(at now: Instant) -> Int {
        lastSent += 1
        sent[lastSent] = now
        return lastSent
    }

    /// A heartbeat came back through the listener, after every change before it was applied.
    /// Heartbeats may come back out of order (they are sent concurrently) or not at all.
    package mutating func received(_ number: Int) {
        guard let sentAt = sent[number] else { return }
        sent = sent.filter { $0.key > number }
        if let confirmed, confirmed.number > number { return }
        confirmed = (number, sentAt)
    }

    /// Whether heartbeat `number` (or a later one) came back.
    package func hasConfirmed(_ number: Int) -> Bool {
        (confirmed?.number ?? 0) >= number
    }

    /// Whether the set may answer at `now`.
    package func isTrusted(at now: Instant) -> Bool {
        guard let confirmed else { return false }
        return now - confirmed.sentAt <= Self.bound
    }

    /// Announcements may have been missed (the listening connection was lost): nothing is
    /// trusted until a heartbeat sent from now on comes back.
    package mutating func distrust() {
        confirmed = nil
        sent = [:]
    }
}
