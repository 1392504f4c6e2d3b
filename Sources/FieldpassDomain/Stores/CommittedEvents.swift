public import Synchronization

/// Session events this process has just committed, handed to its own readers by the task
/// that committed them, before any other instance hears of them: a socket held by the
/// instance that stored its event gets the frame without waiting for the feed (on
/// PostgreSQL, the placing, the `NOTIFY` and the hub's read).
///
/// The feed still carries every event to every instance, this one included; a reader tells
/// an event it already has by its `seq`, and one that comes before an event of its session
/// stored elsewhere (a `seq` skipped) reads the session's events in between from the store.
public final class CommittedEvents: Sendable {
    private let receivers = Mutex<[@Sendable ([StoredEvent]) async -> Void]>([])

    public init() {}

    /// Adds a receiver of every later commit's events, in each commit's order.
    package func receive(_ receiver: @escaping @Sendable ([StoredEvent]) async -> Void) {
        receivers.withLock { $0.append(receiver) }
    }

    /// Hands `events`, just committed, to every receiver.
    package func deliver(_ events: [StoredEvent]) async {
        for receiver in receivers.withLock({ $0 }) { await receiver(events) }
    }
}
