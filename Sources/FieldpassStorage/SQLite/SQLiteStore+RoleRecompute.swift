import FieldpassDomain
import Foundation
import GRDB

extension SQLiteStore {
    /// Applies a ``RoleRecompute`` in the caller's transaction (``RoleRecomputeSQL``): who
    /// changes is worked out once, into a temporary table, then the audit entries and the
    /// lifecycle events of the changes are written, while the roles they name as before are
    /// still stored, then the roles. A rollback takes the temporary table back with the rest.
    static func recomputeRoles(_ recompute: RoleRecompute, _ db: Database, environmentID: String, now: Double) throws {
        var changes: [String] = []
        let query = RoleRecomputeSQL.changes(recompute, environmentID: environmentID) { value in
            changes.append(value)
            return "?"
        }
        try db.execute(sql: "CREATE TEMP TABLE role_changes AS \(query)", arguments: StatementArguments(changes))
        var records: [String] = []
        let with = try RoleRecomputeSQL.records(recompute) { value in
            records.append(value)
            return "?"
        }
        let written = StatementArguments(records) + [environmentID, now]
        try db.execute(sql: "WITH \(with.sql)\n\(RoleRecomputeSQL.insertEntries(environment: "?", at: "?"))", arguments: written)
        if with.hasEvents {
            try db.execute(sql: "WITH \(with.sql)\n\(RoleRecomputeSQL.insertEvents(environment: "?", at: "?"))", arguments: written)
        }
        try db.execute(sql: RoleRecomputeSQL.update)
        try db.execute(sql: "DROP TABLE temp.role_changes")
    }
}
