import FieldpassDomain
import PostgresNIO

/// Session events: a move's events are appended here (``apply(_:_:)``), unplaced in the feed
/// (see ``PostgresFeed``); the operations on them are written once (``TransactionalStore``).
extension PostgresStore {
    /// Appends events, each with its session's next `seq`, unplaced in the feed (see the
    /// type's comment): publish them after commit.
    static func append(
        _ events: [(event: SessionEvent, sessionID: String)], on connection: PostgresConnection, now: Double
    ) async throws -> [StoredEvent] {
        guard !events.isEmpty else { return [] }
        var numbered: [(event: SessionEvent, sessionID: String, seq: Int, storedForm: String)] = []
        for (event, sessionID) in events {
            guard
                let seq = try await connection.value(
                    "UPDATE sessions SET last_seq = last_seq + 1 WHERE id = \(sessionID) RETURNING last_seq", as: Int.self
                )
            else { throw StoreInconsistency("no session for event") }
            numbered.append((event, sessionID, seq, try event.storedForm()))
        }
        var stored: [StoredEvent] = []
        for item in numbered {
            try await connection.execute(
                """
                INSERT INTO session_events (session_id, seq, type, frame, terminal, created_at, writer_xid, written)
                VALUES (\(item.sessionID), \(item.seq), \(item.event.type), \(item.storedForm), \(item.event.isTerminal), \(now),
                        \(unescaped: PostgresFeed.unplacedMark))
                """
            )
            stored.append(
                StoredEvent(
                    rowID: 0, sessionID: item.sessionID, seq: item.seq, event: item.event, storedAt: now
                ))
        }
        return stored
    }
}
