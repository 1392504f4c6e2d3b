import FieldpassDomain

/// The statements of ``UnconfirmedUserRules`` both stores share (``SharedStatement``).
enum UnconfirmedUserStatements {
    /// A running session is an unfinished one: a finished session that waits only for its
    /// device's acknowledgement (its last event was `session_expired` or `login_failed`, or it
    /// signed in, which the narrowing excludes) does not keep its person.
    private static let unfinished = SessionRules.unfinished.map { "'\($0.rawValue)'" }.joined(separator: ", ")

    /// The candidates: only narrows (never signed in, created before the cutoff, not
    /// provisioned through SCIM: the IdP decides when those go; no badge: an admin issued one,
    /// and a badge's worker may never sign in at the IdP) and reads what the rule decides on:
    /// cutoff.
    static let candidates = SharedStatement { value in
        """
        SELECT u.id, u.role, u.disabled_at IS NOT NULL AS disabled,
               (SELECT MAX(s.created_at) FROM sessions s WHERE s.user_id = u.id) AS last_registered_at,
               EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND s.status IN (\(unfinished))) AS running,
               EXISTS (SELECT 1 FROM team_members m WHERE m.user_id = u.id) AS in_team,
               EXISTS (SELECT 1 FROM realm_grants g WHERE g.user_id = u.id) AS has_grant
        FROM users u WHERE u.signed_in_at IS NULL AND u.created_at < \(value(1))
          AND NOT EXISTS (SELECT 1 FROM scim_users p WHERE p.user_id = u.id)
          AND NOT EXISTS (SELECT 1 FROM badges b WHERE b.user_id = u.id)
        """
    }

    /// Deletes the people: their ids.
    static let remove = SharedStatement(dialects: { dialect in "DELETE FROM users WHERE \(dialect.isOneOf("id", list: 1))" })

    /// Deletes the grants on their personal realms: the realms' paths.
    static let removeGrants = SharedStatement(dialects: { dialect in
        "DELETE FROM realm_grants WHERE \(dialect.isOneOf("realm_path", list: 1))"
    })

    /// Deletes the audit entries of their creation: the entries' targets
    /// (``UnconfirmedUserRules/forgottenHistory(of:)``).
    static let forgetAuditEntries = SharedStatement(dialects: { dialect in
        "DELETE FROM audit_log WHERE \(dialect.isOneOf("target", list: 1))"
    })

    /// Deletes the lifecycle events of their creation: patterns their bodies are like.
    static let forgetLifecycleEvents = SharedStatement(dialects: { dialect in
        dialect.isPostgres
            ? "DELETE FROM lifecycle_events WHERE body LIKE ANY(\(dialect.value(1)))"
            : "DELETE FROM lifecycle_events WHERE EXISTS (SELECT 1 FROM json_each(\(dialect.value(1))) AS p WHERE body LIKE p.value)"
    })
}
