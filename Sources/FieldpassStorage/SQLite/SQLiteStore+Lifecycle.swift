public import FieldpassDomain
import Foundation
import GRDB

/// The lifecycle events feed (``LifecycleEventStore``), read by the operations written once.
/// The single writer commits row ids in the order it hands them out, so the id is the feed
/// position.
extension SQLiteStore: LifecycleEventStore {
    /// Stores the events of an audit entry (see ``audit(_:environmentID:_:now:)``).
    static func recordLifecycleEvents(of entry: AuditRecord, _ db: Database, environmentID: String, now: Date) throws {
        for event in LifecycleEventRules.events(for: entry) {
            try db.execute(
                cached: "INSERT INTO lifecycle_events (environment_id, body, at) VALUES (?, ?, ?)",
                arguments: [environmentID, try StableJSON.text(event), now.timeIntervalSince1970]
            )
        }
    }
}
