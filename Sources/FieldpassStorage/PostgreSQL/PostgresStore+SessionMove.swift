import FieldpassDomain
import PostgresNIO

extension PostgresStore {
    /// Applies `move` in the caller's transaction: the update and its counts in one statement,
    /// then each moved session's events in the move's event order, unplaced in the feed
    /// (publish them after commit). Given a sign-in's `refreshToken`, the same statement also
    /// revokes its device's live tokens when the session moved: the hot path gains no round trip.
    @discardableResult
    static func apply(
        _ move: SessionMove, _ connection: PostgresConnection, superseding refreshToken: RefreshTokenIssue? = nil
    ) async throws -> (moved: [MovedSession], events: [StoredEvent]) {
        let now = move.at
        let moved = try await connection.rows(
            """
            WITH moved AS (
                UPDATE sessions SET status = \(move.transition.to.rawValue)\(unescaped: move.selection.usesState ? ", state_used = true" : "")
                WHERE \(move.selection, at: move.at) AND status = ANY(\(move.transition.fromValues))
                RETURNING id, environment_id, user_id, device_id
            ), counted AS (
                INSERT INTO onboarding_outcomes (environment_id, outcome, reason, at)
                SELECT environment_id, unnest(\(move.outcomes.map(\.rawValue))::text[]), \(move.reason)::text, \(now) FROM moved
            )\(supersededBy: refreshToken, at: now)
            SELECT id, environment_id, user_id, device_id FROM moved
            """
        ).map(movedSession)
        let ordered = SessionMove.eventOrder(moved, id: \.id)
        let events = try await append(ordered.flatMap { session in move.events.map { ($0, session.id) } }, on: connection, now: now)
        return (ordered, events)
    }

    /// Applies a move of one session, its events stored by the same statement: a failure's
    /// answer to the browser waits for one round trip.
    static func applyInOneStatement(
        _ move: SessionMove, _ connection: PostgresConnection
    ) async throws -> (moved: [MovedSession], events: [StoredEvent]) {
        let now = move.at
        let count = move.events.count
        let frames = try move.events.map { try $0.storedForm() }
        let rows = try await connection.rows(
            """
            WITH moved AS (
                UPDATE sessions SET status = \(move.transition.to.rawValue)\(unescaped: move.selection.usesState ? ", state_used = true" : ""), last_seq = last_seq + \(count)
                WHERE \(move.selection, at: move.at) AND status = ANY(\(move.transition.fromValues))
                RETURNING id, environment_id, user_id, device_id, last_seq - \(count) AS seq_before
            ), stored AS (
                INSERT INTO session_events (session_id, seq, type, frame, terminal, created_at, writer_xid, written)
                SELECT moved.id, moved.seq_before + e.position, e.type, e.frame, e.terminal, \(now),
                       \(unescaped: PostgresFeed.unplacedMark)
                FROM moved, unnest(\(move.events.map(\.type))::text[], \(frames)::text[], \(move.events.map(\.isTerminal))::boolean[])
                     WITH ORDINALITY AS e(type, frame, terminal, position)
            ), counted AS (
                INSERT INTO onboarding_outcomes (environment_id, outcome, reason, at)
                SELECT environment_id, unnest(\(move.outcomes.map(\.rawValue))::text[]), \(move.reason)::text, \(now) FROM moved
            )
            SELECT id, environment_id, user_id, device_id, seq_before FROM moved
            """
        )
        var moved: [MovedSession] = []
        var events: [StoredEvent] = []
        for row in rows {
            let session = try movedSession(row)
            let seqBefore = try row.get("seq_before", as: Int.self)
            moved.append(session)
            for (offset, event) in move.events.enumerated() {
                events.append(StoredEvent(rowID: 0, sessionID: session.id, seq: seqBefore + offset + 1, event: event, storedAt: now))
            }
        }
        return (moved, events)
    }

    private static func movedSession(_ row: PostgresRandomAccessRow) throws -> MovedSession {
        MovedSession(
            id: try row.get("id"), environmentID: try row.get("environment_id"), userID: try row.get("user_id"),
            deviceID: try row.get("device_id")
        )
    }
}
