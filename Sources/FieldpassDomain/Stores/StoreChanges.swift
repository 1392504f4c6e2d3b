/// How a store tells its readers that something was stored, so that sockets and long-polls
/// wake at once instead of polling.
///
/// The SQLite store signals its own process's changes at once and other processes' soon
/// after (a server's `SQLiteChangeWatcher`); the PostgreSQL store signals every instance's
/// changes (`LISTEN/NOTIFY`). Readers still look every ``safetyNetInterval`` (seconds),
/// for changes no signal reported.
public protocol StoreChanges: Sendable {
    /// Signalled after session events were stored.
    var sessionEvents: ChangeSignal { get }
    /// The session events this process commits, as it commits them.
    var committedEvents: CommittedEvents { get }
    /// Signalled after the integration realm feed moved.
    var realmFeed: ChangeSignal { get }
    /// How often readers look even without a signal.
    var safetyNetInterval: Duration { get }
    /// What stands against access tokens, kept in memory from every instance's announcements;
    /// `nil` where reading the store is as fast (SQLite, which the CLI also writes directly).
    var revocations: LiveRevocations? { get }
}
