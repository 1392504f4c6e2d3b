public import FieldpassDomain
public import Logging
public import ServiceLifecycle

/// Delivers stored events to the sockets of this process.
///
/// Every event is written to the store first. The events this process commits come to the
/// hub at once, from the committing task (``CommittedEvents``); and the hub reads the store's
/// event feed in row order, for every instance's events, handing each event to the sockets of
/// its session. The store's change signal wakes it for every event it reports (from any
/// instance or process); it also looks every `safetyNetInterval` for events no signal
/// reported, and places those left unplaced (``PlacingLooks``). So a socket may get an event
/// twice, or one of its session's events before an earlier one stored elsewhere: it tells
/// them apart by `seq` (``EventSocketController``).
public actor SessionEventHub: Service {
    private let store: any OnboardingStore & StoreChanges
    private let logger: Logger
    private let ticker = Ticker()
    private var lastRowID: Int64?
    private var placingLooks: PlacingLooks
    private var subscribers: [String: [Int: AsyncStream<StoredEvent>.Continuation]] = [:]
    private var nextSubscriberID = 0
    /// Live subscriptions over all sessions, kept beside `subscribers` so that admitting a
    /// socket does not walk every session.
    private(set) var subscriberCount = 0

    /// Creates a hub reading `store`'s feed.
    public init(store: any OnboardingStore & StoreChanges, logger: Logger) {
        self.store = store
        self.logger = logger
        placingLooks = PlacingLooks(safetyNetInterval: store.safetyNetInterval)
        store.sessionEvents.observe { [ticker] in ticker.wake() }
        store.committedEvents.receive { [weak self] events in await self?.hand(events) }
    }

    /// Polls until shutdown, then ends every subscription.
    public func run() async throws {
        ticker.wake()
        await ticker.run(every: store.safetyNetInterval) {
            await poll()
        }
        finishAll()
    }

    /// Events of `sessionID` stored from now on. Call before reading stored events, so
    /// nothing falls between the two; duplicates are told apart by `seq`. With `limits`,
    /// throws `SocketLimits.Refusal` instead when the session or the process is full.
    func subscribe(sessionID: String, within limits: SocketLimits? = nil) async throws -> (id: Int, events: AsyncStream<StoredEvent>) {
        // Whoever comes first, a subscriber or `run`, fixes where the feed starts: every
        // event stored after this call returns is then above it and gets delivered.
        _ = try await startingPoint()
        // Checked after the await, with no suspension before the insert: two sockets
        // subscribing at once cannot both take the last place.
        if let limits { try limits.admit(session: subscribers[sessionID]?.count ?? 0, all: subscriberCount) }
        let (stream, continuation) = AsyncStream.makeStream(of: StoredEvent.self)
        nextSubscriberID += 1
        subscribers[sessionID, default: [:]][nextSubscriberID] = continuation
        subscriberCount += 1
        return (nextSubscriberID, stream)
    }

    /// Ends a subscription.
    func unsubscribe(sessionID: String, id: Int) {
        if let continuation = subscribers[sessionID]?.removeValue(forKey: id) {
            continuation.finish()
            subscriberCount -= 1
        }
        if subscribers[sessionID]?.isEmpty == true { subscribers[sessionID] = nil }
    }

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
        do {
            // Fixed at the first poll that reaches the store, if no subscriber came first.
            let after = try await startingPoint()
            let events =
                placingLooks.places(at: .now)
                ? try await store.events(afterRowID: after, limit: 1000) : try await store.placedEvents(afterRowID: after, limit: 1000)
            guard let last = events.last else { return }
            lastRowID = max(lastRowID ?? 0, last.rowID)
            hand(events)
            // A full batch means more are waiting.
            if events.count == 1000 { ticker.wake() }
        } catch is CancellationError {
            return
        } catch {
            // The next tick retries; a store outage must not end delivery for good.
            logger.warning("Reading the event feed failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
        }
    }

    /// Hands each event to the subscribers of its session.
    private func hand(_ events: [StoredEvent]) {
        for event in events {
            subscribers[event.sessionID]?.values.forEach { $0.yield(event) }
        }
    }

    private func finishAll() {
        for continuations in subscribers.values {
            continuations.values.forEach { $0.finish() }
        }
        subscribers = [:]
        subscriberCount = 0
    }
}
