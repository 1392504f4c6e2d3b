public import Logging
public import ServiceLifecycle

/// Delivers stored events to the sockets of this process.
///
/// Every event is written to the store first; the hub reads the store's event feed in row
/// order and hands each event to the sockets of its session. Writers in this process call
/// ``notify()`` so their events go out at once; writers in other processes (the CLI, other
/// instances) are picked up by the next poll, at most `pollInterval` later.
public actor SessionEventHub: Service {
    private let store: any OnboardingStore
    private let pollInterval: Duration
    private let logger: Logger
    private let ticker = Ticker()
    private var lastRowID: Int64?
    private var subscribers: [String: [Int: AsyncStream<StoredEvent>.Continuation]] = [:]
    private var nextSubscriberID = 0

    /// Creates a hub reading `store`'s feed.
    public init(store: any OnboardingStore, logger: Logger, pollInterval: Duration = .milliseconds(50)) {
        self.store = store
        self.logger = logger
        self.pollInterval = pollInterval
    }

    /// Polls until shutdown, then ends every subscription.
    public func run() async throws {
        _ = try await startingPoint()
        await ticker.run(every: pollInterval) {
            await poll()
        }
        finishAll()
    }

    /// Wakes the hub: an event was just stored by this process.
    public nonisolated func notify() {
        ticker.wake()
    }

    /// Events of `sessionID` stored from now on. Call before reading stored events, so
    /// nothing falls between the two; duplicates are told apart by `seq`.
    func subscribe(sessionID: String) async throws -> (id: Int, events: AsyncStream<StoredEvent>) {
        // Whoever comes first, a subscriber or `run`, fixes where the feed starts: every
        // event stored after this call returns is then above it and gets delivered.
        _ = try await startingPoint()
        let (stream, continuation) = AsyncStream.makeStream(of: StoredEvent.self)
        nextSubscriberID += 1
        subscribers[sessionID, default: [:]][nextSubscriberID] = continuation
        return (nextSubscriberID, stream)
    }

    /// Ends a subscription.
    func unsubscribe(sessionID: String, id: Int) {
        subscribers[sessionID]?.removeValue(forKey: id)?.finish()
        if subscribers[sessionID]?.isEmpty == true { subscribers[sessionID] = nil }
    }

    /// Number of live subscriptions, for tests and metrics.
    var subscriberCount: Int { subscribers.values.reduce(0) { $0 + $1.count } }

    /// The row id the feed starts after, read from the store the first time it is needed.
    private func startingPoint() async throws -> Int64 {
        if let lastRowID { return lastRowID }
        let latest = try await store.latestEventRowID()
        // Another caller may have set it while this one read; keep the earlier choice.
        let start = lastRowID ?? latest
        lastRowID = start
        return start
    }

    private func poll() async {
        guard let after = lastRowID else { return }
        do {
            let events = try await store.events(afterRowID: after, limit: 1000)
            guard let last = events.last else { return }
            lastRowID = max(lastRowID ?? 0, last.rowID)
            for event in events {
                subscribers[event.sessionID]?.values.forEach { $0.yield(event) }
            }
            // A full batch means more are waiting.
            if events.count == 1000 { notify() }
        } catch is CancellationError {
            return
        } catch {
            // The next tick retries; a store outage must not end delivery for good.
            logger.warning("Reading the event feed failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        }
    }

    private func finishAll() {
        for continuations in subscribers.values {
            continuations.values.forEach { $0.finish() }
        }
        subscribers = [:]
    }
}
