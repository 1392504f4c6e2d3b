import FieldpassDomain
import PostgresNIO

extension PostgresStore {
    /// Applies `move` in the caller's transaction in one statement: the update, its counts, and
    /// each moved session's events, numbered after the session's `last_seq` and inserted in
    /// the move's event order (``SessionMove/eventOrder(_:id:)``: by id, byte by byte), unplaced
    /// in the feed (publish them after commit). A failed sign-in's answer waits for one round
    /// trip, not one for the move and two for each event.
    @discardableResult
    static func apply(_ move: SessionMove, _ connection: PostgresConnection) async throws -> (moved: [MovedSession], events: [StoredEvent])
    {
        let now = move.at
        let count = move.events.count
        let frames = try move.events.map { try $0.storedForm() }
        let rows = try await connection.rows(
            """
            WITH moved AS (
                UPDATE sessions SET status = \(move.transition.to.rawValue)\(unescaped: move.selection.usesState ? ", state_used = true" : ""),
                    last_seq = last_seq + \(count)
                WHERE \(move.selection, at: move.at) AND status = ANY(\(move.transition.fromValues))
                RETURNING id, environment_id, user_id, device_id, last_seq - \(count) AS seq_before
            ), stored AS (
                INSERT INTO session_events (session_id, seq, type, frame, terminal, created_at, writer_xid, written)
                SELECT moved.id, moved.seq_before + e.position, e.type, e.frame, e.terminal, \(now), \(unescaped: PostgresFeed.unplacedMark)
                FROM moved, unnest(\(move.events.map(\.type))::text[], \(frames)::text[], \(move.events.map(\.isTerminal))::boolean[])
                    WITH ORDINALITY AS e(type, frame, terminal, position)
                ORDER BY moved.id COLLATE "C", e.position
            ), counted AS (
                INSERT INTO onboarding_outcomes (environment_id, outcome, reason, at)
                SELECT environment_id, unnest(\(move.outcomes.map(\.rawValue))::text[]), \(move.reason)::text, \(now) FROM moved
            )
            SELECT id, environment_id, user_id, device_id, seq_before FROM moved
            """
        )
        let ordered = SessionMove.eventOrder(try rows.map { (try movedSession($0), try $0.get("seq_before", as: Int.self)) }, id: \.0.id)
        let events = ordered.flatMap { session, seqBefore in
            move.events.enumerated().map { offset, event in
                StoredEvent(rowID: 0, sessionID: session.id, seq: seqBefore + offset + 1, event: event, storedAt: now)
            }
        }
        return (ordered.map(\.0), events)
    }

    private static func movedSession(_ row: PostgresRandomAccessRow) throws -> MovedSession {
        MovedSession(
            id: try row.get("id"), environmentID: try row.get("environment_id"), userID: try row.get("user_id"),
            deviceID: try row.get("device_id")
        )
    }
}
