/// A session event as stored, with its place in the session and in the store.
public struct StoredEvent: Sendable, Equatable {
    /// Global row id: the order of the cross-process feed (0 where PostgreSQL has not placed
    /// the event in it yet, see `PostgresFeed`).
    public var rowID: Int64
    public var sessionID: String
    public var seq: Int
    public var event: SessionEvent
    /// When it was stored (seconds since 1970), for the delivery-time metric.
    public var storedAt: Double

    public init(rowID: Int64, sessionID: String, seq: Int, event: SessionEvent, storedAt: Double) {
        self.rowID = rowID
        self.sessionID = sessionID
        self.seq = seq
        self.event = event
        self.storedAt = storedAt
    }

    /// Whether the session's socket closes after this event.
    public var isTerminal: Bool { event.isTerminal }
}
