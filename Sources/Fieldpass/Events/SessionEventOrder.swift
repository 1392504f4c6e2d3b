import FieldpassDomain

/// A socket's events in `seq` order, each once, from live events that may come twice (at
/// commit and again from the feed) or early: an event this instance committed can come before
/// one of its session that another instance stored first. Committed events of a session have
/// no gaps in `seq` (a session's next `seq` is taken under its row's lock), so an event past a
/// gap finds the ones in between in the store.
struct SessionEventOrder {
    /// The last `seq` sent.
    private(set) var lastSeq: Int
    /// The session's stored events after a `seq`, in order.
    let storedAfter: (Int) async throws -> [StoredEvent]

    init(after lastSeq: Int, storedAfter: @escaping (Int) async throws -> [StoredEvent]) {
        self.lastSeq = lastSeq
        self.storedAfter = storedAfter
    }

    /// What to send now that `event` came: nothing for one sent before, the event itself when
    /// it is the next, else every stored event from the next one on.
    mutating func due(_ event: StoredEvent) async throws -> [StoredEvent] {
        guard event.seq > lastSeq else { return [] }
        let due = event.seq == lastSeq + 1 ? [event] : try await storedAfter(lastSeq)
        lastSeq = due.last?.seq ?? lastSeq
        return due
    }

    /// The session's stored events after the last one sent, to send before the live ones.
    mutating func stored() async throws -> [StoredEvent] {
        let stored = try await storedAfter(lastSeq)
        lastSeq = stored.last?.seq ?? lastSeq
        return stored
    }
}
