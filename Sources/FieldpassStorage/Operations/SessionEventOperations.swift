public import FieldpassDomain
public import Foundation

/// Session events and the feed of them across instances.
///
/// Feed order: an event's row id is its position in the feed. SQLite's single writer commits
/// ids in the order it hands them out; PostgreSQL gives an id after its transaction committed
/// (see ``PostgresFeed``), so ids become visible in order, with no holes, and a reader that
/// remembers the highest id it has seen never skips an event that commits late. There, the
/// events a write returns, and those a session's own read finds not placed yet, carry row id 0.
extension TransactionalStore {
    public func events(sessionID: String, after: Int) async throws -> [StoredEvent] {
        try await reading { transaction in
            try await transaction.rows(SessionEventStatements.ofSession, sessionID, after).map(StoredEvent.init(row:))
        }
    }

    /// The hubs read this feed; every commit's announcement wakes them again.
    ///
    /// The events placed so far come without placing: after a commit, its instance's
    /// publishing places them and then wakes every hub, and a hub's read that placed as well
    /// would queue on the placing lock for rows that publishing places anyway (on PostgreSQL,
    /// two hubs' reads and one publishing per callback under a push, 2026-12-07). Only a
    /// read that finds none places first: events whose writer stopped before its publishing
    /// still come, late, at a hub's next look that places (``SessionEventHub``).
    public func events(afterRowID id: Int64, limit: Int) async throws -> [StoredEvent] {
        let placed = try await placedEvents(afterRowID: id, limit: limit)
        guard placed.isEmpty else { return placed }
        return try await reading { transaction in
            try await transaction.rows(SessionEventStatements.feed, id, Int64(limit)).map(StoredEvent.init(row:))
        }
    }

    public func placedEvents(afterRowID id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await reading { transaction in
            try await transaction.rows(SessionEventStatements.placedFeed, id, Int64(limit)).map(StoredEvent.init(row:))
        }
    }

    public func latestEventRowID() async throws -> Int64 {
        try await reading { transaction in try await transaction.value(SessionEventStatements.latest, as: Int64.self) ?? 0 }
    }

    /// Locks the session: an event stored meanwhile waits, so the acknowledgement decides on its last one.
    public func acknowledgeEvents(sessionID: String, after: Int, now: Date) async throws -> Bool {
        try await writing { transaction in
            guard
                let row = try await transaction.first(SessionEventStatements.acknowledged, sessionID, locking: .sessions),
                let status = OnboardingSession.Status(rawValue: try row.column("status")),
                let end = SessionRules.acknowledgement(
                    sessionID: sessionID, after: after, lastSeq: try row.column("last_seq"), status: status, now: now.timeIntervalSince1970)
            else { return false }
            try await transaction.execute(SessionEventStatements.drop, end.sessionID, end.droppedEventType)
            try await transaction.execute(SessionEventStatements.end, end.at, end.sessionID)
            return true
        }
    }
}
