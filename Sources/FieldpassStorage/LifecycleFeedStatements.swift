/// The statements of the lifecycle events feed both stores share (``SharedStatement``). A
/// row's position is SQLite's row id, which its single writer commits in the order it hands
/// them out, and PostgreSQL's `feed_seq`, given after commit (see ``PostgresFeed``).
enum LifecycleFeedStatements {
    /// The environment's events after a position, in feed order: environment, position, limit.
    static let entries = SharedStatement(dialects: { dialect in
        let position = dialect.isPostgres ? "feed_seq" : "id"
        return """
            SELECT \(position) AS position, environment_id, body, at FROM lifecycle_events
            WHERE environment_id = \(dialect.value(1)) AND \(position) > \(dialect.value(2))
            ORDER BY \(position) LIMIT \(dialect.value(3))
            """
    })

    /// The feed's last position given.
    static let position = SharedStatement(dialects: { dialect in
        dialect.isPostgres
            ? "SELECT value FROM counters WHERE name = 'lifecycle_events'"
            : "SELECT seq FROM sqlite_sequence WHERE name = 'lifecycle_events'"
    })

    /// Deletes the events stored before then: time. PostgreSQL's placed ones only: an
    /// unplaced one is at most a moment old.
    static let purge = SharedStatement(dialects: { dialect in
        "DELETE FROM lifecycle_events WHERE at < \(dialect.value(1))" + (dialect.isPostgres ? " AND feed_seq IS NOT NULL" : "")
    })
}
