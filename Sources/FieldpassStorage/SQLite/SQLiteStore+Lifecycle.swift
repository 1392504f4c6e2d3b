public import FieldpassDomain
public import Foundation
import GRDB

/// The lifecycle events feed (``LifecycleEventStore``). The single writer commits row ids in
/// the order it hands them out, so the id is the feed position.
extension SQLiteStore: LifecycleEventStore {
    public func lifecycleEvents(environmentID: String, after: Int64, limit: Int) async throws -> [LifecycleFeedEntry] {
        try await read { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT id, environment_id, body, at FROM lifecycle_events
                        WHERE environment_id = ? AND id > ? ORDER BY id LIMIT ?
                        """),
                arguments: [environmentID, after, limit]
            ).map { row in
                LifecycleFeedEntry(
                    position: row["id"], environmentID: row["environment_id"], at: Date(timeIntervalSince1970: row["at"]),
                    event: try JSONDecoder().decode(LifecycleEvent.self, from: Data((row["body"] as String).utf8))
                )
            }
        }
    }

    public func lifecycleFeedPosition() async throws -> Int64 {
        try await read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT seq FROM sqlite_sequence WHERE name = 'lifecycle_events'")) ?? 0
        }
    }

    public func purgeLifecycleEvents(before date: Date) async throws {
        try await write { db in
            try db.execute(cached: "DELETE FROM lifecycle_events WHERE at < ?", arguments: [date.timeIntervalSince1970])
        }
    }

    /// Stores the events of an audit entry (see ``audit(_:environmentID:_:now:)``).
    static func recordLifecycleEvents(of entry: AuditRecord, _ db: Database, environmentID: String, now: Date) throws {
        for event in LifecycleEventRules.events(for: entry) {
            try db.execute(
                cached: "INSERT INTO lifecycle_events (environment_id, body, at) VALUES (?, ?, ?)",
                arguments: [environmentID, try StableJSON.text(event), now.timeIntervalSince1970]
            )
        }
    }

    /// A person who never signed in leaves nothing behind (``UnconfirmedUserRules``): not the
    /// audit entry of their creation by a registration, nor its lifecycle event.
    static func forgetHistory(of userID: String, _ db: Database) throws {
        let history = UnconfirmedUserRules.forgottenHistory(of: userID)
        try db.execute(cached: "DELETE FROM audit_log WHERE target = ?", arguments: [history.auditTarget])
        try db.execute(cached: "DELETE FROM lifecycle_events WHERE body LIKE ?", arguments: ["%\(history.eventBodyMarker)%"])
    }
}
