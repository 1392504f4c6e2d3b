import FieldpassDomain
import PostgresNIO

extension PostgresStore {
    /// Applies `move` in the caller's transaction: the update and its counts in one statement,
    /// then each moved session's events in the move's event order, unplaced in the feed
    /// (publish them after commit).
    @discardableResult
    static func apply(_ move: SessionMove, _ connection: PostgresConnection) async throws -> (moved: [MovedSession], events: [StoredEvent])
    {
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
            )
            SELECT id, environment_id, user_id, device_id FROM moved
            """
        ).map(movedSession)
        let ordered = SessionMove.eventOrder(moved, id: \.id)
        let events = try await append(ordered.flatMap { session in move.events.map { ($0, session.id) } }, on: connection, now: now)
        return (ordered, events)
    }

    private static func movedSession(_ row: PostgresRandomAccessRow) throws -> MovedSession {
        MovedSession(
            id: try row.get("id"), environmentID: try row.get("environment_id"), userID: try row.get("user_id"),
            deviceID: try row.get("device_id")
        )
    }
}
