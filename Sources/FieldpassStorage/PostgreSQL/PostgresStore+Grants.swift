public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    public func changeGrant(
        _ access: RealmAccess?, realmPath: String, userID: String, by caller: DirectoryCaller, now: Date
    ) async throws -> AccessFacts {
        let facts = try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            let (environmentID, actor) = (caller.environmentID, caller.actor)
            // Locks the person: the previous grant read below stays theirs until commit, so a
            // concurrent change of the same grant cannot log the same "before" twice.
            let facts =
                try await Self.fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true) == nil
                ? nil : try await Self.fetchFacts(connection, userID: userID, environmentID: environmentID)
            var ownerKnown = true
            if let owner = GrantRules.ownerToCheck(of: realmPath, granting: access) {
                ownerKnown = try await Self.exists(owner, connection, environmentID: environmentID)
            }
            let plan = try GrantRules.change(access, realmPath: realmPath, facts: facts, ownerKnown: ownerKnown, actor: actor)
            try await Self.apply(plan, connection, environmentID: environmentID, now: now)
            guard let updated = try await Self.fetchFacts(connection, userID: userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return updated
        }
        await revocationsCaughtUp()
        return facts
    }

    /// Whether the person or team is of the environment.
    private static func exists(_ owner: GrantRules.Owner, _ connection: PostgresConnection, environmentID: String) async throws -> Bool {
        let (statement, id) = GrantStatements.ownerExists(owner)
        return try await connection.value(PostgresQuery(statement, id, environmentID), as: Bool.self) ?? false
    }

    static func auditEntry(_ row: PostgresRandomAccessRow) throws -> AuditEntry {
        try AuditEntry(
            id: row.get("id"), actor: row.get("actor"), action: row.get("action"), target: row.get("target"),
            before: decodeState(row.get("before")), after: decodeState(row.get("after")),
            at: Date(timeIntervalSince1970: row.get("at"))
        )
    }

    private static func decodeState(_ json: String?) throws -> [String: String]? {
        try json.map { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
    }

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
