public import Foundation

/// The lifecycle events feed (``LifecycleEvent``), written by each store's audit function and
/// read by the integration API in position order.
public protocol LifecycleEventStore: Sendable {
    /// Signalled after lifecycle events were stored.
    var lifecycleFeed: ChangeSignal { get }
    /// The environment's events after position `after`, oldest first, at most `limit`.
    func lifecycleEvents(environmentID: String, after: Int64, limit: Int) async throws -> [LifecycleFeedEntry]
    /// The feed's last position given out (in any environment): no valid cursor is beyond it.
    func lifecycleFeedPosition() async throws -> Int64
    /// Deletes the events stored before `date` (see ``LifecycleEventRules/retention``).
    func purgeLifecycleEvents(before date: Date) async throws
}
