public import FieldpassDomain
public import Foundation
import PostgresNIO
import Synchronization

/// The lifecycle events feed (``LifecycleEventStore``): rows are stored unplaced and given
/// their positions after commit, like the realm feed's (see ``PostgresFeed``).
extension PostgresStore: LifecycleEventStore {
    public func lifecycleEvents(environmentID: String, after: Int64, limit: Int) async throws -> [LifecycleFeedEntry] {
        try await placeCommitted(.lifecycleEvents)
        return try await read { connection in
            try await connection.rows(
                """
                SELECT feed_seq, environment_id, body, at FROM lifecycle_events
                WHERE environment_id = \(environmentID) AND feed_seq > \(after)
                ORDER BY feed_seq LIMIT \(limit)
                """
            ).map { row in
                try LifecycleFeedEntry(
                    position: row.get("feed_seq"), environmentID: row.get("environment_id"),
                    at: Date(timeIntervalSince1970: row.get("at")),
                    event: JSONDecoder().decode(LifecycleEvent.self, from: Data(row.get("body", as: String.self).utf8))
                )
            }
        }
    }

    public func lifecycleFeedPosition() async throws -> Int64 {
        try await placeCommitted(.lifecycleEvents)
        return try await read { connection in
            try await connection.value("SELECT value FROM counters WHERE name = 'lifecycle_events'", as: Int64.self) ?? 0
        }
    }

    /// Placed rows only: an unplaced one is at most a moment old.
    public func purgeLifecycleEvents(before date: Date) async throws {
        try await read { connection in
            try await connection.execute(
                "DELETE FROM lifecycle_events WHERE at < \(date.timeIntervalSince1970) AND feed_seq IS NOT NULL"
            )
        }
    }

    /// The events of an audit entry, as the bodies the statement that
    /// ``auditing(_:environmentID:now:following:then:)`` builds stores with it, unplaced.
    static func lifecycleEventBodies(of entry: AuditRecord) throws -> [String] {
        try LifecycleEventRules.events(for: entry).map(StableJSON.text)
    }

    /// People who never signed in leave nothing behind (``UnconfirmedUserRules``): not the
    /// audit entries of their creation by a registration, nor its lifecycle events.
    static func forgetHistory(of userIDs: [String], _ connection: PostgresConnection) async throws {
        guard !userIDs.isEmpty else { return }
        let histories = userIDs.map(UnconfirmedUserRules.forgottenHistory)
        let targets = histories.map(\.auditTarget)
        let patterns = histories.map { "%\($0.eventBodyMarker)%" }
        try await connection.execute("DELETE FROM audit_log WHERE target = ANY(\(targets))")
        try await connection.execute("DELETE FROM lifecycle_events WHERE body LIKE ANY(\(patterns))")
    }
}

/// Whether the write under way stored lifecycle events: ``PostgresStore/write(_:)`` publishes
/// the feed after its commit then, and only then, so that other writes cost nothing more.
final class LifecycleWrites: Sendable {
    @TaskLocal static var current: LifecycleWrites?

    private let stored = Mutex(false)

    func wrote() { stored.withLock { $0 = true } }

    var any: Bool { stored.withLock { $0 } }
}
