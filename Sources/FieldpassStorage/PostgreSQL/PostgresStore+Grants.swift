public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    /// Writes an entry a rule decided on; `before` and `after` are stored as JSON objects. The
    /// lifecycle events it stands for are stored with it (``LifecycleEventRules``).
    static func audit(_ connection: PostgresConnection, environmentID: String, _ entry: AuditRecord, now: Date) async throws {
        let statement = try auditing(entry, environmentID: environmentID, now: now, following: nil, then: "SELECT 1")
        try await connection.execute(statement.query)
        if statement.storesEvents { LifecycleWrites.current?.wrote() }
    }

    /// Stores `entries` and their lifecycle events, in their order, in one statement.
    static func audit(_ connection: PostgresConnection, environmentID: String, _ entries: [AuditRecord], now: Date) async throws {
        // An empty text stands for no JSON: PostgreSQL's arrays of text take no nil from here.
        func json(_ value: (some Encodable)?) throws -> String {
            guard let value else { return "" }
            return try StableJSON.text(value)
        }
        let events = try entries.flatMap(lifecycleEventBodies(of:))
        let at = now.timeIntervalSince1970
        try await connection.execute(
            """
            WITH audited AS (
                INSERT INTO audit_log (environment_id, actor, action, target, before, after, at)
                SELECT \(environmentID), entry.actor, entry.action, entry.target, NULLIF(entry.before, ''), NULLIF(entry.after, ''), \(at)
                FROM unnest(\(entries.map(\.actor))::text[], \(entries.map(\.action))::text[], \(entries.map(\.target))::text[],
                            \(try entries.map { try json($0.before) })::text[], \(try entries.map { try json($0.after) })::text[])
                     WITH ORDINALITY AS entry(actor, action, target, before, after, position)
                ORDER BY entry.position
            )
            INSERT INTO lifecycle_events (environment_id, body, at, writer_xid, written)
            SELECT \(environmentID), event.body, \(at), \(unescaped: PostgresFeed.unplacedMark)
            FROM unnest(\(events)::text[]) WITH ORDINALITY AS event(body, position) ORDER BY event.position
            """
        )
        if !events.isEmpty { LifecycleWrites.current?.wrote() }
    }

    /// One statement that runs `leading` (the first entries of a `WITH` list, or none), then
    /// stores `entry` and its lifecycle events (see ``lifecycleEventBodies(of:)``) once for
    /// each row of the entry `eachRowOf` names or, without `leading`, once; then answers
    /// `final`. So a change and its audit cost one round trip. Whoever runs it marks the
    /// write (``LifecycleWrites``) when it stored events. `leading`'s text starts after
    /// `WITH`; `eachRowOf` and `final` are SQL text, never values.
    static func auditing(
        _ entry: AuditRecord, environmentID: String, now: Date, following leading: (query: PostgresQuery, eachRowOf: String)?,
        then final: String
    ) throws -> (query: PostgresQuery, storesEvents: Bool) {
        let events = try lifecycleEventBodies(of: entry)
        var binds = leading?.query.binds ?? PostgresBindings()
        func parameter(_ value: some PostgresNonThrowingEncodable) -> String {
            binds.append(value)
            return "$\(binds.count)"
        }
        let before = try entry.before.map(StableJSON.text).map(parameter) ?? "NULL::text"
        let after = try entry.after.map(StableJSON.text).map(parameter) ?? "NULL::text"
        let (environment, at) = (parameter(environmentID), parameter(now.timeIntervalSince1970))
        let each = leading.map { " FROM \($0.eachRowOf)" } ?? ""
        let sql = """
            WITH \(leading.map { "\($0.query.sql), " } ?? "")audited AS (
                INSERT INTO audit_log (environment_id, actor, action, target, before, after, at)
                SELECT \(environment), \(parameter(entry.actor)), \(parameter(entry.action)), \(parameter(entry.target)),
                       \(before), \(after), \(at)\(each)
            ), announced AS (
                INSERT INTO lifecycle_events (environment_id, body, at, writer_xid, written)
                SELECT \(environment), event.body, \(at), \(PostgresFeed.unplacedMark)
                FROM \(leading.map { "\($0.eachRowOf), " } ?? "")unnest(\(parameter(events))::text[]) AS event(body)
            )
            \(final)
            """
        return (PostgresQuery(unsafeSQL: sql, binds: binds), !events.isEmpty)
    }
}
