/// The statements of the session sweep (``SessionRules/sweep(now:deliveredBefore:deleteBefore:)``)
/// both stores share (``SharedStatement``). Each is conditional, so two instances sweeping at
/// once do each step once.
enum SessionSweepStatements {
    /// Drops the token events of the sessions the sweep ends: now, deliveredBefore, the token event type.
    static let dropTokenEvents = SharedStatement { value in
        """
        DELETE FROM session_events WHERE type = \(value(3)) AND session_id IN (
            SELECT id FROM sessions WHERE \(LapsedSessions.condition(now: value(1), deliveredBefore: value(2))))
        """
    }

    /// Ends the sessions the sweep ends: now, deliveredBefore.
    static let markEnded = SharedStatement { value in
        "UPDATE sessions SET ended_at = \(value(1)) WHERE \(LapsedSessions.condition(now: value(1), deliveredBefore: value(2)))"
    }

    /// Deletes the sessions expired before then: time.
    static let deleteExpired = SharedStatement { value in "DELETE FROM sessions WHERE expires_at < \(value(1))" }
}
