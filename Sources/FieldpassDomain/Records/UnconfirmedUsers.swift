/// The users `users.unconfirmed_retention` removes, in SQL both stores share: never signed
/// in, last registered before the cutoff, no session still running, and nothing an admin
/// gave them (a role, a team, a grant, a disabling), which shows someone means to keep them.
package enum UnconfirmedUsers {
    /// `WHERE` conditions on `users`; `cutoff` is the placeholder of the cutoff time.
    package static func condition(cutoff: String) -> String {
        """
        users.signed_in_at IS NULL AND users.role = 'worker' AND users.disabled_at IS NULL
        AND users.created_at < \(cutoff)
        AND NOT EXISTS (
            SELECT 1 FROM sessions s WHERE s.user_id = users.id AND (s.created_at >= \(cutoff) OR s.ended_at IS NULL)
        )
        AND NOT EXISTS (SELECT 1 FROM team_members m WHERE m.user_id = users.id)
        AND NOT EXISTS (SELECT 1 FROM realm_grants g WHERE g.user_id = users.id)
        """
    }
}
