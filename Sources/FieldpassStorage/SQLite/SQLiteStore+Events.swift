import FieldpassDomain
import GRDB

/// Session events: a move's events are appended here (``apply(_:_:)``); the operations on them
/// are written once (``TransactionalStore``).
extension SQLiteStore {
    /// Appends an event with the session's next sequence number.
    static func append(_ event: SessionEvent, to sessionID: String, db: Database, now: Double) throws -> StoredEvent {
        guard
            let seq = try Int.fetchOne(
                db.cachedStatement(sql: "UPDATE sessions SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq"),
                arguments: [sessionID]
            )
        else {
            throw DatabaseError(message: "no session for event")
        }
        // The `frame` column keeps the event's stored form; the socket builds the frame when it sends.
        try db.execute(
            cached: "INSERT INTO session_events (session_id, seq, type, frame, terminal, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [sessionID, seq, event.type, try event.storedForm(), event.isTerminal, now]
        )
        return StoredEvent(rowID: db.lastInsertedRowID, sessionID: sessionID, seq: seq, event: event, storedAt: now)
    }
}
