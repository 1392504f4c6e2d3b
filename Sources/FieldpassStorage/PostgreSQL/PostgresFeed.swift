import PostgresNIO

/// A feed that readers follow with a cursor (everything after the last position seen): the
/// session events, which the event hubs follow, or the realm and lifecycle feeds of the
/// integration API.
///
/// Writers do not number their rows. A row is stored unplaced (no position), with the id of
/// its transaction and the order it was written in. After its commit the writer asks for
/// the committed rows to be placed and announced, without waiting (``PostgresStore/publish(_:)``),
/// and a reader places whatever is left before it reads (``PostgresStore/placeCommitted(_:)``).
/// So no writer holds a lock that another writer waits for, and concurrent commits do not
/// queue behind one another's WAL flush. Placing:
/// - happens only after a row committed, under a lock that only placing takes, so positions
///   become visible in the order they are given: a reader never skips a row that committed
///   late, and rolled-back rows take no position (no gaps);
/// - waits until every transaction of this database that could still commit an earlier row
///   has ended (the row's transaction id is below the oldest of them) and follows
///   transaction ids, so rows keep the order their transactions began writing in, as with a
///   counter row's lock. Other databases' transactions do not hold it back.
enum PostgresFeed: String, Sendable, CaseIterable {
    case sessionEvents = "events"
    case realms
    case lifecycleEvents = "lifecycle"

    /// The values of `writer_xid, written` for a row stored unplaced.
    static let unplacedMark = "pg_current_xact_id(), nextval('feed_writes')"

    /// How long a publishing run waits before it places, so that the commits of that time
    /// are placed by one run (``FeedPublisher``). Realm and lifecycle changes are read by a
    /// company's backend, which polls or long-polls for them: to it 10 ms is nothing, and
    /// placing them one commit at a time took a fifth of PostgreSQL's CPU under a thousand
    /// registrations a second (2026-12-07, `perf`). A device waits for its session's events.
    var publishingDelay: Duration {
        self == .sessionEvents ? .zero : .milliseconds(10)
    }

    /// The `NOTIFY` payload that wakes this feed's readers (see ``PostgresChangeListener``).
    var payload: String { rawValue }

    private var table: String {
        switch self {
        case .sessionEvents: "session_events"
        case .realms: "realms"
        case .lifecycleEvents: "lifecycle_events"
        }
    }

    private var position: String { self == .sessionEvents ? "id" : "feed_seq" }

    private var counter: String {
        switch self {
        case .sessionEvents: "session_events"
        case .realms: "realm_feed"
        case .lifecycleEvents: "lifecycle_events"
        }
    }

    private var keys: [String] {
        switch self {
        case .sessionEvents: ["session_id", "seq"]
        case .realms: ["path"]
        case .lifecycleEvents: ["id"]
        }
    }

    /// The advisory lock placing holds: one placing transaction at a time per feed.
    var placingLock: Int64 {
        switch self {
        case .sessionEvents: 0x6670_6665_6564_0001
        case .realms: 0x6670_6665_6564_0002
        case .lifecycleEvents: 0x6670_6665_6564_0003
        }
    }

    /// The id, as text, of the newest transaction whose committed rows are still unplaced.
    var newestUnplacedWriter: PostgresQuery {
        PostgresQuery(unsafeSQL: "SELECT writer_xid::text FROM \(table) WHERE \(position) IS NULL ORDER BY writer_xid DESC LIMIT 1")
    }

    /// Places what may be placed, in one statement committed on its own (see
    /// ``placingFunctionSQL``), then wakes the feed's readers on every instance
    /// (``PostgresChangeListener``): the notification is delivered when the placing commits.
    var placeAndNotify: PostgresQuery {
        PostgresQuery(unsafeSQL: "SELECT \(placingFunction)(NULL), pg_notify('\(PostgresChangeListener.channel)', '\(payload)')")
    }

    /// Places what may be placed; answers whether rows of the transaction `writer` (from
    /// ``newestUnplacedWriter``) or older still wait for a transaction that is open.
    func place(upTo writer: String) -> PostgresQuery {
        var binds = PostgresBindings()
        binds.append(writer)
        return PostgresQuery(unsafeSQL: "SELECT \(placingFunction)($1::xid8)", binds: binds)
    }

    private var placingFunction: String { "fieldpass_place_\(table)" }

    /// The function that places the feed: when any row is unplaced, it takes
    /// ``placingLock`` and runs ``placement``, then tells whether rows up to the transaction
    /// it is given (none for NULL) are still unplaced. One round trip instead of a transaction's
    /// four: after a commit, the publishing that wakes the readers waits for no more.
    /// PL/pgSQL takes a new snapshot for each statement at READ COMMITTED, so the placement's
    /// is taken after the lock, as the placement needs. Migration 22 replaces migration 12's
    /// (``indexCheckedPlacingFunctionSQL``); a change to it is a new migration.
    ///
    /// Its transaction commits without waiting for the WAL flush (`synchronous_commit` off),
    /// so the lock that every placer waits for is not held through a disk write. A placing
    /// lost in a crash is given again identically: it placed every committed row of the
    /// transactions older than the oldest one running, all of which had ended, so the first
    /// placing after recovery finds those same rows, in the same order, from the same counter,
    /// and places any newer ones after them. Whatever a reader did with a position and then
    /// stored durably was written to the WAL after the placing, which it flushes too.
    var placingFunctionSQL: String {
        placingFunctionSQL(creating: "CREATE OR REPLACE FUNCTION", checks: .byIndex, placement: placement(findingRowsBy: .key))
    }

    /// Migration 12's text of ``placingFunctionSQL``, kept as that migration applied it: its
    /// placement found the rows again among the unplaced ones (``PlacedRowLookup/keyAmongUnplaced``).
    var indexCheckedPlacingFunctionSQL: String {
        placingFunctionSQL(
            creating: "CREATE OR REPLACE FUNCTION", checks: .byIndex, placement: placement(findingRowsBy: .keyAmongUnplaced)
        )
    }

    /// Migration 11's text of ``placingFunctionSQL``, kept as that migration applied it.
    var firstPlacingFunctionSQL: String {
        placingFunctionSQL(creating: "CREATE FUNCTION", checks: .byExists, placement: placement(findingRowsBy: .keyAmongUnplaced))
    }

    /// How a placing asks whether any row, or any row up to a writer's, is unplaced.
    private enum UnplacedCheck {
        /// Migration 11's: `EXISTS`, which a connection that first planned it on a small table
        /// answers with a sequential scan, expecting a match early, until the table is next
        /// analyzed: with nothing unplaced, the lifecycle feed's check then read its whole
        /// table at every call.
        case byExists
        /// The oldest unplaced writer in the order of the `*_unplaced` index, which that index
        /// answers without a sort.
        case byIndex
    }

    private func placingFunctionSQL(creating: String, checks: UnplacedCheck, placement: PostgresQuery) -> String {
        let anyUnplaced: String
        let stillWaiting: String
        switch checks {
        case .byExists:
            anyUnplaced = "EXISTS (SELECT 1 FROM \(table) WHERE \(position) IS NULL)"
            stillWaiting = "EXISTS (SELECT 1 FROM \(table) WHERE \(position) IS NULL AND writer_xid <= up_to)"
        case .byIndex:
            let oldestUnplacedWriter = "(SELECT writer_xid FROM \(table) WHERE \(position) IS NULL ORDER BY writer_xid LIMIT 1)"
            anyUnplaced = "(\(oldestUnplacedWriter) IS NOT NULL)"
            stillWaiting = "coalesce(\(oldestUnplacedWriter) <= up_to, false)"
        }
        // One line per statement of the body: the migration splits its text at ";\n".
        let body = [
            "PERFORM set_config('synchronous_commit', 'off', true);",
            "IF NOT \(anyUnplaced) THEN RETURN false; END IF;",
            "PERFORM pg_advisory_xact_lock(\(placingLock));",
            placement.sql + ";",
            "RETURN \(stillWaiting);",
        ]
        return """
            \(creating) \(placingFunction)(up_to xid8) RETURNS boolean LANGUAGE plpgsql AS $placing$ BEGIN \(body.joined(separator: " ")) END $placing$;

            """
    }

    /// The event hubs' read of the session events after a row id, in one round trip: it
    /// places what may be placed (as ``placeAndNotify`` does), then reads, in one transaction, so the read
    /// sees the placing. Part of the same migration as ``firstPlacingFunctionSQL``.
    static let sessionEventsAfterSQL = """
        CREATE FUNCTION fieldpass_session_events_after(after_id bigint, most bigint) RETURNS SETOF session_events LANGUAGE plpgsql AS $reading$ \
        BEGIN PERFORM \(PostgresFeed.sessionEvents.placingFunction)(NULL); \
        RETURN QUERY SELECT * FROM session_events WHERE id > after_id ORDER BY id LIMIT most; END $reading$;

        """

    /// How the placement's update finds the rows `ready` chose.
    enum PlacedRowLookup {
        /// By their key and `position IS NULL` (migrations 11 and 12). The planner may then
        /// read the rows to update from the `*_unplaced` index too, and join the two sets in a
        /// nested loop, since the statistics show few unplaced rows; PL/pgSQL keeps that plan
        /// for the connection's life. A backlog of n rows (after a transaction left open a
        /// few seconds) then cost n² comparisons, so each placing took longer than the
        /// writes it placed: on 2026-12-07, 15,000 rows waited for seconds after a 3 s
        /// transaction ended, and one placing ran for 19 s.
        case keyAmongUnplaced
        /// By their key alone: a lookup by the table's unique key for each row, however many
        /// are unplaced. `ready` read only unplaced rows, and no other placing runs meanwhile
        /// (``placingLock``), so none of them can have been placed since.
        case key
    }

    /// Gives the committed rows that may be placed the next positions of the feed's counter,
    /// in (transaction id, write order). Run holding ``placingLock``: the statement's snapshot
    /// is then taken after the previous placing committed. The rows that may be placed are
    /// those older than every transaction that the snapshot sees running, except those that
    /// `pg_stat_activity` shows in another database. `pg_stat_activity` is read a moment after
    /// the snapshot is taken: a transaction of this database that commits in between is no
    /// longer listed there, but its rows are not in the snapshot either, so it must still
    /// count as running, or later rows would be placed before its own.
    func placement(findingRowsBy lookup: PlacedRowLookup) -> PostgresQuery {
        let keyList = keys.joined(separator: ", ")
        let join =
            keys.map { "t.\($0) = ready.\($0)" }.joined(separator: " AND ")
            + (lookup == .keyAmongUnplaced ? " AND t.\(position) IS NULL" : "")
        return PostgresQuery(
            unsafeSQL: """
                WITH snapshot AS (SELECT pg_current_snapshot() AS s), oldest_running AS (
                    SELECT coalesce(
                        (SELECT min(x) FROM snapshot, pg_snapshot_xip(s) AS x
                         WHERE x::xid NOT IN (SELECT backend_xid FROM pg_stat_activity
                                              WHERE datname IS DISTINCT FROM current_database() AND backend_xid IS NOT NULL)),
                        (SELECT pg_snapshot_xmax(s) FROM snapshot)
                    ) AS xid
                ), ready AS (
                    SELECT \(keyList), row_number() OVER (ORDER BY writer_xid, written) AS n
                    FROM \(table) WHERE \(position) IS NULL AND writer_xid < (SELECT xid FROM oldest_running)
                ), base AS (
                    UPDATE counters SET value = value + (SELECT count(*) FROM ready)
                    WHERE name = '\(counter)' AND EXISTS (SELECT 1 FROM ready)
                    RETURNING value - (SELECT count(*) FROM ready) AS value
                )
                UPDATE \(table) t SET \(position) = base.value + ready.n
                FROM ready, base WHERE \(join)
                """
        )
    }
}
