public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    public func changeGrant(
        _ access: RealmAccess?, realmPath: String, userID: String, environmentID: String, actor: String, now: Date
    ) async throws -> AccessFacts {
        let facts = try await write { connection in
            // Locks the person: the previous grant read below stays theirs until commit, so a
            // concurrent change of the same grant cannot log the same "before" twice.
            guard try await Self.fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true) != nil,
                let facts = try await Self.fetchFacts(connection, userID: userID, environmentID: environmentID)
            else { throw DirectoryError.unknownUser }
            if access != nil { try await Self.requireOwnRealm(connection, path: realmPath, environmentID: environmentID) }
            let previous = facts.grants[realmPath]
            guard previous != access else { return facts }
            if let access {
                try await connection.execute(
                    """
                    INSERT INTO realm_grants (user_id, realm_path, access, granted_at)
                    VALUES (\(userID), \(realmPath), \(access.rawValue), \(now.timeIntervalSince1970))
                    ON CONFLICT (user_id, realm_path) DO UPDATE SET access = excluded.access, granted_at = excluded.granted_at
                    """
                )
            } else {
                try await connection.execute(
                    "DELETE FROM realm_grants WHERE user_id = \(userID) AND realm_path = \(realmPath)"
                )
            }
            try await Self.audit(
                connection, environmentID: environmentID,
                .grant(actor: actor, userID: userID, realmPath: realmPath, from: previous, to: access), now: now
            )
            try await Self.announce(.user(id: userID), on: connection)
            guard let updated = try await Self.fetchFacts(connection, userID: userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return updated
        }
        await revocationsCaughtUp()
        return facts
    }

    /// A grant may name a person's or a team's realm (or one below it) only of the admin's own
    /// environment: another's ids are unknown here, as everywhere else. Patterns stay allowed.
    private static func requireOwnRealm(_ connection: PostgresConnection, path: String, environmentID: String) async throws {
        let segments = path.split(separator: "/")
        guard segments.count >= 2, segments[1] != "*" else { return }
        let id = String(segments[1])
        let exists: Bool?
        switch segments[0] {
        case "users":
            exists = try await connection.value(
                "SELECT EXISTS (SELECT 1 FROM users WHERE id = \(id) AND environment_id = \(environmentID))", as: Bool.self
            )
        case "teams":
            exists = try await connection.value(
                "SELECT EXISTS (SELECT 1 FROM teams WHERE id = \(id) AND environment_id = \(environmentID))", as: Bool.self
            )
        default:
            return
        }
        guard exists ?? false else { throw DirectoryError.unknownRealm }
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
        let before = try entry.before.map(StableJSON.text)
        let after = try entry.after.map(StableJSON.text)
        // The entry and its lifecycle events (see ``lifecycleEventBodies(of:)``) in one statement.
        let events = try lifecycleEventBodies(of: entry)
        try await connection.execute(
            """
            WITH audited AS (
                INSERT INTO audit_log (environment_id, actor, action, target, before, after, at)
                VALUES (\(environmentID), \(entry.actor), \(entry.action), \(entry.target), \(before), \(after), \(now.timeIntervalSince1970))
            )
            INSERT INTO lifecycle_events (environment_id, body, at, writer_xid, written)
            SELECT \(environmentID), body, \(now.timeIntervalSince1970), \(unescaped: PostgresFeed.unplacedMark)
            FROM unnest(\(events)::text[]) AS body
            """
        )
    }
}
