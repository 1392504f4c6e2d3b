public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func changeGrant(
        _ access: RealmAccess?, realmPath: String, userID: String, by caller: DirectoryCaller, now: Date
    ) async throws -> AccessFacts {
        try await write { db in
            let caller = try Self.authorize(db, caller)
            let (environmentID, actor) = (caller.environmentID, caller.actor)
            let facts = try Self.fetchFacts(db, userID: userID, environmentID: environmentID)
            let ownerKnown = try GrantRules.ownerToCheck(of: realmPath, granting: access).map {
                try Self.exists($0, db, environmentID: environmentID)
            }
            let plan = try GrantRules.change(access, realmPath: realmPath, facts: facts, ownerKnown: ownerKnown ?? true, actor: actor)
            try Self.apply(plan, db, environmentID: environmentID, now: now)
            guard let updated = try Self.fetchFacts(db, userID: userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return updated
        }
    }

    /// Whether the person or team is of the environment.
    private static func exists(_ owner: GrantRules.Owner, _ db: Database, environmentID: String) throws -> Bool {
        let (statement, id) = GrantStatements.ownerExists(owner)
        return try Bool.fetchOne(db.cachedStatement(sql: statement.sqlite), arguments: [id, environmentID]) ?? false
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
