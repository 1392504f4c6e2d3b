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

            init(_ entry: LifecycleFeedEntry) {
                let event = entry.event
                cursor = FeedCursor.encode(entry.position, feed: FeedCursor.lifecycle)
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
        _ = try context.identity.requireServiceAccount()
        let query = request.uri.queryParameters
        let (limit, wait) = try Self.pageSize(request)
        let position = try await startPosition(cursor: query.get("cursor"), feed: FeedCursor.lifecycle) {
            try await store.lifecycleFeedPosition()
        }
        let environmentID = context.identity.environmentID
        let entries = try await longPoll(wait: wait, environmentID: environmentID, signal: store.lifecycleFeed) {
            try await store.lifecycleEvents(environmentID: environmentID, after: position, limit: limit)
        }
        return EventsPage(
            events: entries.map(EventsPage.Event.init),
            cursor: FeedCursor.encode(entries.last?.position ?? position, feed: FeedCursor.lifecycle)
        )
    }
}
