public import FieldpassDomain
public import Foundation
import GRDB

/// Shared devices on SQLite, each change planned by ``SharedDeviceRules``.
extension SQLiteStore {
    /// The calling person's teams; none for callers who are no person.
    static func teamsOf(_ caller: DirectoryCaller, _ db: Database) throws -> Set<String> {
        guard let person = caller.person else { return [] }
        return Set(try String.fetchAll(db.cachedStatement(sql: SharedDeviceTables.teamsOf.sqlite), arguments: [person.id]))
    }

    static func fetchSharedDevice(_ db: Database, id: String, environmentID: String) throws -> SharedDeviceRecord? {
        try Row.fetchOne(db.cachedStatement(sql: SharedDeviceTables.one.sqlite), arguments: [id, environmentID]).map(sharedDevice)
    }

    static func sharedDevice(_ row: Row) -> SharedDeviceRecord {
        SharedDeviceRecord(
            id: row["id"], environmentID: row["environment_id"], name: row["name"], teamID: row["team_id"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            enrollmentExpiresAt: Date(timeIntervalSince1970: row["enrollment_expires_at"]),
            enrolledAt: (row["enrolled_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            keyThumbprint: row["key_thumbprint"],
            unenrolledAt: (row["unenrolled_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        )
    }
}
