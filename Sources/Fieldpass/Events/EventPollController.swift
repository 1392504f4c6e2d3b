import FieldpassDomain
import Foundation
import Hummingbird
import ServiceLifecycle

/// `GET /events/poll?session_id=…[&after=N][&wait=S]`: the event socket's events by HTTP
/// long-poll, for networks that break WebSocket upgrades and platforms that cannot open one.
///
/// The answer is `{"events": [...], "ended": bool}`: the very frames the socket sends, every
/// stored one with `seq > after`, in order. With none stored, it waits up to `wait` seconds
/// (at most 30) for the next and answers as soon as one is stored, by any instance. The
/// close rules are the socket's: `ended` says that no event follows these, a finished
/// session answers at once with what is stored after `after`, and a poll that asks past its
/// terminal event acknowledges it (``OnboardingStore/acknowledgeEvents(sessionID:after:now:)``). A
/// waiting poll holds one of the session's socket places while it waits; a newer poll of the
/// session ends its wait (``WaitingPolls``), and so does the server's graceful shutdown.
struct EventPollController: Sendable {
    let store: any OnboardingStore
    let hub: SessionEventHub
    let limits: SocketLimits
    let readiness: Readiness
    let waiting = WaitingPolls()

    static let maxWaitSeconds = 30
    /// Where it is served, which `DPoPNonceMiddleware` also answers with a nonce.
    static let path = "events/poll"

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get(RouterPath(Self.path), use: poll)
    }

    @Sendable func poll(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = try EventQuery(request)
        let wait =
            try QueryValue.integer(request.uri.queryParameters.get("wait"), name: "wait", in: 0...Int.max)
            .map { min($0, Self.maxWaitSeconds) } ?? 0
        guard try await store.session(id: query.sessionID) != nil else {
            throw APIError(.notFound, OnboardingErrorCode.unknownSession, "No such onboarding session.")
        }
        guard wait > 0, readiness.phase != .draining else { return try await answer(query, live: nil) }
        // The session's previous poll stops waiting first, so its place is free for this one.
        if let previous = waiting.current(sessionID: query.sessionID) {
            await hub.unsubscribe(sessionID: query.sessionID, id: previous)
        }
        let subscription: (id: Int, events: AsyncStream<StoredEvent>)
        do {
            subscription = try await hub.subscribe(sessionID: query.sessionID, within: limits)
        } catch let refusal as SocketLimits.Refusal {
            throw APIError(.serviceUnavailable, OnboardingErrorCode.serverBusy, refusal.reason + "; try again shortly.", retryAfter: 1)
        }
        if let replaced = waiting.replace(sessionID: query.sessionID, with: subscription.id) {
            await hub.unsubscribe(sessionID: query.sessionID, id: replaced)
        }
        let response: Result<Response, any Error>
        do {
            response = .success(try await answer(query, live: (subscription.events, .seconds(wait))))
        } catch {
            response = .failure(error)
        }
        waiting.remove(sessionID: query.sessionID, id: subscription.id)
        await hub.unsubscribe(sessionID: query.sessionID, id: subscription.id)
        return try response.get()
    }

    /// The stored events after `query.after`; with none and `live` given, the next ones the
    /// hub hands over within its wait. Subscribed before this reads, nothing falls between.
    /// A finished session with nothing after `after` has been read whole: that is the
    /// device's acknowledgement, and the session ends.
    private func answer(_ query: EventQuery, live: (events: AsyncStream<StoredEvent>, wait: Duration)?) async throws -> Response {
        // Read before the events: a session that finishes after this sends its end as an event.
        let isFinished = try await store.session(id: query.sessionID)?.isFinished ?? true
        var events = try await store.events(sessionID: query.sessionID, after: query.after)
        var waited = false
        if events.isEmpty, !isFinished, let live {
            await Self.next(after: query.after, in: live.events, within: live.wait)
            events = try await store.events(sessionID: query.sessionID, after: query.after)
            waited = true
        }
        if waited { events.forEach { FieldpassMetrics.eventDelivered(storedAt: $0.storedAt) } }
        if isFinished, events.isEmpty {
            _ = try await store.acknowledgeEvents(sessionID: query.sessionID, after: query.after, now: Date())
        }
        let ended = isFinished || events.contains(where: \.isTerminal)
        let body = "{\"events\":[" + (try events.map { try $0.frame() }.joined(separator: ",")) + "],\"ended\":\(ended)}"
        return Response(
            status: .ok, headers: [.contentType: "application/json", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(string: body))
        )
    }

    /// Returns when an event with `seq > after` arrives, or `wait` has passed, or the wait is
    /// ended (a newer poll, the hub stopping, the server's graceful shutdown): the store says
    /// then what there is, and an empty answer sends the device to ask again, of this
    /// instance or another.
    private static func next(after: Int, in events: AsyncStream<StoredEvent>, within wait: Duration) async {
        await cancelWhenGracefulShutdown {
            await Suspension.wait(atMost: wait) {
                for await event in events where event.seq > after { return }
            }
        }
    }
}
