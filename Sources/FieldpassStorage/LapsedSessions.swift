/// The sessions the sweep ends (``SessionSweepStep/markEnded(now:deliveredBefore:)``), as a
/// condition on `sessions`, written once for both dialects: past their expiry, not ended, and
/// no event stored since `deliveredBefore`. A finished session's terminal event is its last,
/// so this is the later of the expiry and the grace after the terminal event.
enum LapsedSessions {
    /// The condition, with the dialect's placeholders for the two times.
    static func condition(now: String, deliveredBefore: String) -> String {
        """
        expires_at <= \(now) AND ended_at IS NULL AND NOT EXISTS (
            SELECT 1 FROM session_events e WHERE e.session_id = sessions.id AND e.created_at > \(deliveredBefore))
        """
    }
}
