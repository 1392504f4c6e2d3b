import FieldpassDomain
import Foundation
import Hummingbird

/// `GET /integration/events`: every lifecycle change of the service account's environment
/// (``LifecycleEvent``), with the realm feed's cursor, long-poll and no-gap guarantee.
extension IntegrationController {
    struct EventsPage: ResponseEncodable {
        struct Event: Encodable {
            var cursor: String
            var type: String
            var environment: String
            var actor: String
            var actorID: String?
            var at: Date
            var user: LifecycleEvent.Subject?
            var team: LifecycleEvent.Subject?
            var device: LifecycleEvent.Subject?
            var reason: String?
            var before: [String: String]?
            var after: [String: String]?

            enum CodingKeys: String, CodingKey {
                case cursor, type, environment, actor
                case actorID = "actor_id"
                case at, user, team, device, reason, before, after
            }

            init(_ entry: LifecycleFeedEntry, cursors: FeedCursor) throws {
                let event = entry.event
                cursor = try cursors.encode(entry.position, feed: .lifecycle)
                type = event.type.rawValue
                environment = entry.environmentID
                actor = event.actor
                actorID = event.actorID
                at = entry.at
                user = event.user
                team = event.team
                device = event.device
                reason = event.reason
                before = event.before
                after = event.after
            }
        }

        var events: [Event]
        var cursor: String
    }

    @Sendable func lifecycleEvents(_ request: Request, context: IdentifiedRequestContext) async throws -> EventsPage {
        let cursors = try cursors(context.identity)
        let query = request.uri.queryParameters
        let (limit, wait) = try Self.pageSize(request)
        let position = try await startPosition(cursor: query.get("cursor"), cursors: cursors, feed: .lifecycle) {
            try await store.lifecycleFeedPosition()
        }
        let environmentID = context.identity.environmentID
        let entries = try await longPoll(wait: wait, environmentID: environmentID, signal: store.lifecycleFeed) {
            try await store.lifecycleEvents(environmentID: environmentID, after: position, limit: limit)
        }
        return EventsPage(
            events: try entries.map { try EventsPage.Event($0, cursors: cursors) },
            cursor: try cursors.encode(entries.last?.position ?? position, feed: .lifecycle)
        )
    }
}
