import FieldpassDomain
import GRDB

extension SQLiteStore {
    /// Applies `move` in the caller's transaction: one conditional update, then each moved
    /// session's counts and events, in the move's event order. Returns the moved sessions in
    /// that order and the events stored.
    @discardableResult
    static func apply(_ move: SessionMove, _ db: Database) throws -> (moved: [MovedSession], events: [StoredEvent]) {
        let transition = move.transition
        let now = move.at
        let moved = try Row.fetchAll(
            db.cachedStatement(
                sql: """
                    UPDATE sessions SET status = ?\(move.selection.usesState ? ", state_used = 1" : "") WHERE \(move.selection.condition) AND \(transition.fromCondition)
                    RETURNING id, environment_id, user_id, device_id
                    """),
            arguments: [transition.to.rawValue] + move.selection.arguments(at: now) + transition.fromArguments
        ).map { row in
            MovedSession(id: row["id"], environmentID: row["environment_id"], userID: row["user_id"], deviceID: row["device_id"])
        }
        let ordered = SessionMove.eventOrder(moved, id: \.id)
        var events: [StoredEvent] = []
        for session in ordered {
            for outcome in move.outcomes {
                try countOutcome(outcome, reason: move.reason, environmentID: session.environmentID, db: db, now: now)
            }
            for event in move.events { events.append(try append(event, to: session.id, db: db, now: now)) }
        }
        return (ordered, events)
    }
}
