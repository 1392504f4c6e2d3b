/// The statements on session events both stores share (``SharedStatement``). PostgreSQL's
/// events take their feed positions (row ids) after commit (see ``PostgresFeed``).
enum SessionEventStatements {
    /// What ``StoredEvent`` reads.
    private static let columns = "id, session_id, seq, frame, created_at"

    /// The session's events after a sequence number, in order, an event not placed in the feed
    /// yet with row id 0: session, sequence number.
    static let ofSession = SharedStatement { value in
        """
        SELECT coalesce(id, 0) AS id, session_id, seq, frame, created_at FROM session_events
        WHERE session_id = \(value(1)) AND seq > \(value(2)) ORDER BY seq
        """
    }

    /// The feed after a row id as placed so far, in feed order: row id, limit.
    static let placedFeed = SharedStatement { value in placedAfter(value(1), limit: value(2)) }

    /// The feed after a row id, in feed order: row id, limit. PostgreSQL's function first
    /// places what committed, without waiting for older transactions, in the same round trip.
    static let feed = SharedStatement(dialects: { dialect in
        let (after, limit) = (dialect.value(1), dialect.value(2))
        return dialect.isPostgres
            ? "SELECT \(columns) FROM fieldpass_session_events_after(\(after), \(limit))" : placedAfter(after, limit: limit)
    })

    private static func placedAfter(_ after: String, limit: String) -> String {
        "SELECT \(columns) FROM session_events WHERE id > \(after) ORDER BY id LIMIT \(limit)"
    }

    /// The feed's last row id. PostgreSQL's counter, not `MAX(id)`: ended sessions' token
    /// events are deleted, ids are never reused.
    static let latest = SharedStatement(dialects: { dialect in
        dialect.isPostgres
            ? "SELECT value FROM counters WHERE name = 'session_events'" : "SELECT COALESCE(MAX(id), 0) FROM session_events"
    })

    /// What an acknowledgement decides on, of a session not ended: session.
    static let acknowledged = SharedStatement { value in
        "SELECT status, last_seq FROM sessions WHERE id = \(value(1)) AND ended_at IS NULL"
    }

    /// Drops the session's events of a type: session, type.
    static let drop = SharedStatement { value in
        "DELETE FROM session_events WHERE session_id = \(value(1)) AND type = \(value(2))"
    }

    /// Ends the session: time, session.
    static let end = SharedStatement { value in "UPDATE sessions SET ended_at = \(value(1)) WHERE id = \(value(2))" }
}
