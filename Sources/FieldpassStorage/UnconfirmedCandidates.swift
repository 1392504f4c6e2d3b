import FieldpassDomain

/// The query both stores share for ``UnconfirmedUserRules``: only narrows (never signed in,
/// created before the cutoff, not provisioned through SCIM: the IdP decides when those go; no
/// badge: an admin issued one, and a badge's worker may never sign in at the IdP)
/// and reads what the rule decides on.
enum UnconfirmedCandidates {
    /// A running session is an unfinished one: a finished session that waits only for its
    /// device's acknowledgement (its last event was `session_expired` or `login_failed`, or it
    /// signed in, which the narrowing excludes) does not keep its person.
    private static let unfinished = SessionRules.unfinished.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// `cutoff` is the placeholder of the cutoff time.
    static func query(cutoff: String) -> String {
        """
        SELECT u.id, u.role, u.disabled_at IS NOT NULL AS disabled,
               (SELECT MAX(s.created_at) FROM sessions s WHERE s.user_id = u.id) AS last_registered_at,
               EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND s.status IN (\(unfinished))) AS running,
               EXISTS (SELECT 1 FROM team_members m WHERE m.user_id = u.id) AS in_team,
               EXISTS (SELECT 1 FROM realm_grants g WHERE g.user_id = u.id) AS has_grant
        FROM users u WHERE u.signed_in_at IS NULL AND u.created_at < \(cutoff)
          AND NOT EXISTS (SELECT 1 FROM scim_users p WHERE p.user_id = u.id)
          AND NOT EXISTS (SELECT 1 FROM badges b WHERE b.user_id = u.id)
        """
    }
}
