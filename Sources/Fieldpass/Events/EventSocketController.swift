import FieldpassDomain
import Foundation
public import Hummingbird
import HummingbirdWebSocket
import NIOWebSocket
import CoreMetrics

/// `GET /events?session_id=…[&after=N]`: the device's event WebSocket.
///
/// Checks run before the upgrade, so a bad request gets a plain HTTP error. After the
/// upgrade the socket gets the stored events with `seq > after`, then live ones, each
/// exactly once and in order; after a terminal event the socket closes normally. A finished
/// session can produce no more events: its socket gets what was stored after `after` and is
/// closed at once, and one that asks past the terminal event acknowledges it, as a poll does.
///
/// Sending a frame is not delivering it: the session does not end when its terminal frame is
/// written. A device's close reply and a connection cut on the way end the inbound stream
/// alike, so the socket cannot tell that the device has the frame; the device's next request
/// with `after` at or past it, or the grace, ends the session.
public struct EventSocketController: Sendable {
    let store: any OnboardingStore
    let hub: SessionEventHub
    let limits: SocketLimits
    let readiness: Readiness

    /// Registers the route on `router`.
    public func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.ws("events") { request, _ in
            let query = try EventQuery(request)
            guard try await store.session(id: query.sessionID) != nil else {
                throw APIError(.notFound, OnboardingErrorCode.unknownSession, "No such onboarding session.")
            }
            return .upgrade([:])
        } onUpgrade: { inbound, outbound, context in
            let query = try EventQuery(context.request)
            let subscription: (id: Int, events: AsyncStream<StoredEvent>)
            do {
                subscription = try await hub.subscribe(sessionID: query.sessionID, within: limits)
            } catch let refusal as SocketLimits.Refusal {
                // A refused upgrade reaches the client as a bare 400 (Hummingbird answers
                // every refused upgrade alike), so the socket opens and closes at once with
                // 1013 "try again later" and the reason.
                try await outbound.close(.unknown(1013), reason: refusal.reason)
                return
            }
            FieldpassMetrics.openSockets.increment()
            defer { FieldpassMetrics.openSockets.decrement() }
            var failure: (any Error)?
            await readiness.holdingSocket {
                do {
                    // Read after subscribing: a session that finishes from here on sends its end live.
                    let isFinished = try await store.session(id: query.sessionID)?.isFinished ?? true
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await stream(query, subscription.events, isFinished: isFinished, to: outbound) }
                        // Frames from the device mean nothing; the loop ends when the device goes away.
                        group.addTask { for try await _ in inbound {} }
                        group.addTask { await readiness.untilStopping() }
                        try await group.next()
                        group.cancelAll()
                    }
                    if readiness.isStopping { try await outbound.close(.goingAway, reason: "Server shutting down") }
                } catch {
                    failure = error
                }
            }
            await hub.unsubscribe(sessionID: query.sessionID, id: subscription.id)
            if let failure { throw failure }
        }
    }

    private func stream(
        _ query: EventQuery, _ live: AsyncStream<StoredEvent>, isFinished: Bool, to outbound: WebSocketOutboundWriter
    ) async throws {
        var order = SessionEventOrder(after: query.after) { [store] after in
            try await store.events(sessionID: query.sessionID, after: after)
        }
        let stored = try await order.stored()
        for event in stored {
            if try await send(event, to: outbound, live: false) { return }
        }
        if isFinished {
            if stored.isEmpty { _ = try await store.acknowledgeEvents(sessionID: query.sessionID, after: query.after, now: Date()) }
            try await outbound.close(.normalClosure, reason: nil)
            return
        }
        for await event in live {
            for event in try await order.due(event) {
                if try await send(event, to: outbound, live: true) { return }
            }
        }
        // The hub stopped (shutdown) while the device still waits: tell it to come back.
        if !Task.isCancelled {
            try await outbound.close(.goingAway, reason: "Server shutting down")
        }
    }

    /// Sends one event; after a terminal one, closes. Returns whether it closed.
    private func send(_ event: StoredEvent, to outbound: WebSocketOutboundWriter, live: Bool) async throws -> Bool {
        try await outbound.write(.text(try event.frame()))
        // Only live events are timed: a replayed one was stored before the device connected.
        if live { FieldpassMetrics.eventDelivered(storedAt: event.storedAt) }
        guard event.isTerminal else { return false }
        try await outbound.close(.normalClosure, reason: nil)
        return true
    }
}
