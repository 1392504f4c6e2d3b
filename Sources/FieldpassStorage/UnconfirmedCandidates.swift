/// The query both stores share for ``UnconfirmedUserRules``: only narrows (never signed in,
/// created before the cutoff, not provisioned through SCIM: the IdP decides when those go)
/// and reads what the rule decides on.
enum UnconfirmedCandidates {
    /// `cutoff` is the placeholder of the cutoff time.
    static func query(cutoff: String) -> String {
        """
        SELECT u.id, u.role, u.disabled_at IS NOT NULL AS disabled,
               (SELECT MAX(s.created_at) FROM sessions s WHERE s.user_id = u.id) AS last_registered_at,
               EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND s.ended_at IS NULL) AS running,
               EXISTS (SELECT 1 FROM team_members m WHERE m.user_id = u.id) AS in_team,
               EXISTS (SELECT 1 FROM realm_grants g WHERE g.user_id = u.id) AS has_grant
        FROM users u WHERE u.signed_in_at IS NULL AND u.created_at < \(cutoff)
          AND NOT EXISTS (SELECT 1 FROM scim_users p WHERE p.user_id = u.id)
        """
    }
}
