/// The statements on realms and the realm feed both stores share (``SharedStatement``).
enum RealmFeedStatements {
    /// The environment's realms after a feed position, in feed order, each with its person:
    /// environment, position, whether initialized (`NULL` for both), limit.
    static let entries = SharedStatement { value in
        """
        SELECT r.feed_seq, r.path, r.user_id, u.email, r.initialized, u.signed_in_at IS NOT NULL AS signed_in, r.created_at
        FROM realms r JOIN users u ON u.id = r.user_id
        WHERE r.environment_id = \(value(1)) AND r.feed_seq > \(value(2))
          AND (CAST(\(value(3)) AS BOOLEAN) IS NULL OR r.initialized = \(value(3)))
        ORDER BY r.feed_seq LIMIT \(value(4))
        """
    }

    /// The realm feed's last position given.
    static let position = SharedStatement(dialects: { _ in "SELECT value FROM counters WHERE name = 'realm_feed'" })

    /// What marking the realm initialized decides on (``RealmFacts``): path.
    static let facts = SharedStatement { value in "SELECT user_id, environment_id, initialized FROM realms WHERE path = \(value(1))" }

    /// Whether the realm is initialized, as a sign-in reads it: path. PostgreSQL shares the
    /// realm's lock with marking it initialized, which takes it exclusively: whichever commits
    /// second sees the other's change, so `data_ready` is never lost.
    static let initializedForSignIn = SharedStatement(dialects: { dialect in
        "SELECT initialized FROM realms WHERE path = \(dialect.value(1))" + (dialect.isPostgres ? " FOR SHARE" : "")
    })

    /// Marks the realm initialized, a change the feed shows again: time, its new position
    /// (`NULL` in PostgreSQL, where it is stored unplaced, see ``PostgresFeed``), path.
    static let markInitialized = SharedStatement(dialects: { dialect in
        let unplaced = dialect.isPostgres ? ", (writer_xid, written) = (\(PostgresFeed.unplacedMark))" : ""
        return """
            UPDATE realms SET initialized = true, initialized_at = \(dialect.value(1)), feed_seq = \(dialect.value(2))\(unplaced)
            WHERE path = \(dialect.value(3))
            """
    })
}
