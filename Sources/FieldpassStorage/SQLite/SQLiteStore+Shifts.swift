public import FieldpassDomain
public import Foundation
import GRDB

/// Shifts on shared devices on SQLite, each change planned by ``ShiftRules``.
extension SQLiteStore {
    /// The open shifts of the environment's devices, by device.
    static func holders(_ db: Database, environmentID: String) throws -> [String: ShiftRecord] {
        let open = try Row.fetchAll(db.cachedStatement(sql: ShiftTables.openInEnvironment.sqlite), arguments: [environmentID]).map(shift)
        return Dictionary(open.map { ($0.sharedDeviceID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func openShift(_ db: Database, deviceID: String) throws -> ShiftRecord? {
        try Row.fetchOne(db.cachedStatement(sql: ShiftTables.open.sqlite), arguments: [deviceID]).map(shift)
    }

    static func shift(_ row: Row) -> ShiftRecord {
        ShiftRecord(
            id: row["id"], sharedDeviceID: row["shared_device_id"], userID: row["user_id"], email: row["email"],
            startedAt: Date(timeIntervalSince1970: row["started_at"]),
            endedAt: (row["ended_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            endReason: (row["end_reason"] as String?).flatMap(ShiftEndReason.init(rawValue:)), amr: ShiftTables.amr(row["amr"]),
            pinIssuedBy: row["pin_issued_by"])
    }
}
