public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func changeGrant(
        _ access: RealmAccess?, realmPath: String, userID: String, environmentID: String, actor: String, now: Date
    ) async throws -> AccessFacts {
        try await write { db in
            guard let facts = try Self.fetchFacts(db, userID: userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            if access != nil { try Self.requireOwnRealm(db, path: realmPath, environmentID: environmentID) }
            let previous = facts.grants[realmPath]
            guard previous != access else { return facts }
            if let access {
                try db.execute(
                    cached: """
                        INSERT INTO realm_grants (user_id, realm_path, access, granted_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (user_id, realm_path) DO UPDATE SET access = excluded.access, granted_at = excluded.granted_at
                        """,
                    arguments: [userID, realmPath, access.rawValue, now.timeIntervalSince1970]
                )
            } else {
                try db.execute(cached: "DELETE FROM realm_grants WHERE user_id = ? AND realm_path = ?", arguments: [userID, realmPath])
            }
            try Self.audit(
                db, environmentID: environmentID, .grant(actor: actor, userID: userID, realmPath: realmPath, from: previous, to: access),
                now: now
            )
            guard let updated = try Self.fetchFacts(db, userID: userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return updated
        }
    }

    /// A grant may name a person's or a team's realm (or one below it) only of the admin's own
    /// environment: another's ids are unknown here, as everywhere else. Patterns stay allowed.
    private static func requireOwnRealm(_ db: Database, path: String, environmentID: String) throws {
        let segments = path.split(separator: "/")
        guard segments.count >= 2, segments[1] != "*" else { return }
        let table: String
        switch segments[0] {
        case "users": table = "users"
        case "teams": table = "teams"
        default: return
        }
        let exists =
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM \(table) WHERE id = ? AND environment_id = ?)"),
                arguments: [String(segments[1]), environmentID]
            ) ?? false
        guard exists else { throw DirectoryError.unknownRealm }
    }

    static func auditEntry(_ row: Row) throws -> AuditEntry {
        AuditEntry(
            id: row["id"], actor: row["actor"], action: row["action"], target: row["target"],
            before: try decodeState(row["before"]), after: try decodeState(row["after"]),
            at: Date(timeIntervalSince1970: row["at"])
        )
    }

    private static func decodeState(_ json: String?) throws -> [String: String]? {
        try json.map { try JSONDecoder().decode([String: String].self, from: Data($0.utf8)) }
    }

    /// Writes an entry a rule decided on; `before` and `after` are stored as JSON objects. The
    /// lifecycle events it stands for are stored with it (``LifecycleEventRules``).
    static func audit(_ db: Database, environmentID: String, _ entry: AuditRecord, now: Date) throws {
        try db.execute(
            cached: "INSERT INTO audit_log (environment_id, actor, action, target, before, after, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [
                environmentID, entry.actor, entry.action, entry.target, try entry.before.map(StableJSON.text),
                try entry.after.map(StableJSON.text), now.timeIntervalSince1970,
            ]
        )
        try recordLifecycleEvents(of: entry, db, environmentID: environmentID, now: now)
    }
}
