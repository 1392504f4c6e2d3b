public import FieldpassDomain
public import Foundation
import PostgresNIO

/// The session sweep: every step of ``SessionRules/sweep(now:deliveredBefore:deleteBefore:)``
/// in one transaction. Conditional, so two instances sweeping at once do each step once.
extension PostgresStore {
    public func sweepSessions(now: Date, deliveredBefore: Date, deleteBefore: Date) async throws -> [StoredEvent] {
        try await writeEvents { connection in
            var events: [StoredEvent] = []
            let steps = SessionRules.sweep(
                now: now.timeIntervalSince1970, deliveredBefore: deliveredBefore.timeIntervalSince1970,
                deleteBefore: deleteBefore.timeIntervalSince1970
            )
            for step in steps {
                events += try await Self.run(step, connection)
            }
            return events
        }
    }

    /// The sessions a sweep ends, bound to $1 (now) and $2 (deliveredBefore).
    private static let lapsedCondition = LapsedSessions.condition(now: "$1", deliveredBefore: "$2")

    /// `sql`, which names the lapsed sessions, with now and deliveredBefore bound first.
    private static func lapsed(_ sql: String, now: Double, deliveredBefore: Double, _ more: String...) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(now)
        binds.append(deliveredBefore)
        for value in more { binds.append(value) }
        return PostgresQuery(unsafeSQL: sql, binds: binds)
    }

    /// One step of the session sweep; returns the events it stored.
    private static func run(_ step: SessionSweepStep, _ connection: PostgresConnection) async throws -> [StoredEvent] {
        switch step {
        case .expireOverdue(let move):
            // Conditional, so two instances sweeping at once expire each session once.
            return try await apply(move, connection).events
        case .dropTokenEvents(let now, let deliveredBefore):
            try await connection.execute(
                lapsed(
                    "DELETE FROM session_events WHERE type = $3 AND session_id IN (SELECT id FROM sessions WHERE \(lapsedCondition))",
                    now: now, deliveredBefore: deliveredBefore, SessionRules.tokenEventType
                )
            )
        case .markEnded(let now, let deliveredBefore):
            try await connection.execute(
                lapsed("UPDATE sessions SET ended_at = $1 WHERE \(lapsedCondition)", now: now, deliveredBefore: deliveredBefore)
            )
        case .deleteExpired(let before):
            try await connection.execute("DELETE FROM sessions WHERE expires_at < \(before)")
        case .purgeSpentTokens(let step):
            try await purge(step, connection)
        }
        return []
    }
}
