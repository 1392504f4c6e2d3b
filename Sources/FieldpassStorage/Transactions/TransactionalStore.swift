import FieldpassDomain

/// What an operation written once needs of a store: its transactions, and telling its
/// readers what a committed write moved. Both stores provide it; the operations (the
/// `Operations` folder) are written once, as extensions of this protocol, and each store
/// keeps only what differs: its connections, its statements whose text must differ, its
/// schema and its feeds.
protocol TransactionalStore: Sendable {
    associatedtype Transaction: StoreTransaction

    /// Runs `body` in one write transaction, committed when it returns, rolled back when it throws.
    func writing<T: Sendable>(_ body: @escaping @Sendable (Transaction) async throws -> T) async throws -> T

    /// Runs `body` as one change of the next shared write transaction (see ``GroupCommit``),
    /// answering after that commits; a change that stores to `feed` names it.
    func writingGrouped<T: Sendable>(
        announcing feed: StoreFeed?, _ body: @escaping @Sendable (Transaction) async throws -> T
    ) async throws -> T

    /// Runs `body` to read, on a snapshot where the store has one.
    func reading<T: Sendable>(_ body: @escaping @Sendable (Transaction) async throws -> T) async throws -> T

    /// Tells `feed`'s readers, in this instance and every other, that a committed write moved it.
    func announce(_ feed: StoreFeed)

    /// Where this process's readers take the session events it commits (see ``announce(_:)-events``).
    var committedEvents: CommittedEvents { get }

    /// Returns once this instance's view of revoked tokens holds what this instance committed.
    func revocationsCaughtUp() async

    /// Makes every write to `feed` committed before this call readable, in the feed's order,
    /// before a read of the feed.
    func placeCommitted(_ feed: StoreFeed) async throws

    /// How the events the store stores name realms.
    var realmPrefixes: RealmPrefixes { get }
}

extension TransactionalStore {
    /// Hands session events just committed to this process's readers, from the committing
    /// task, and tells every instance's hub that the feed moved (see ``CommittedEvents``).
    func announce(_ events: [StoredEvent]) async {
        guard !events.isEmpty else { return }
        announce(.sessionEvents)
        await committedEvents.deliver(events)
    }
}

/// The feeds readers follow: the session events, the realm feed and the lifecycle events.
enum StoreFeed: Sendable {
    case sessionEvents
    case realms
    case lifecycleEvents
}
