public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
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
