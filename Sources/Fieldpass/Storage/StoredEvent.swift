/// A session event as stored: its frame text is final, so sending it needs no encoding.
public struct StoredEvent: Sendable, Equatable {
    /// Global row id: the order of the cross-process feed (0 where PostgreSQL has not placed
    /// the event in it yet, see `PostgresFeed`).
    public var rowID: Int64
    public var sessionID: String
    public var seq: Int
    /// The JSON text frame, `seq` included.
    public var frame: String
    /// Whether the session's socket closes after this event.
    public var isTerminal: Bool
    /// When it was stored (seconds since 1970), for the delivery-time metric.
    public var storedAt: Double
}
