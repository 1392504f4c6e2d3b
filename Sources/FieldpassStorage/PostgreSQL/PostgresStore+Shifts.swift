public import FieldpassDomain
public import Foundation
import PostgresNIO

/// Shifts on shared devices on PostgreSQL, each change planned by ``ShiftRules``. Every change
/// to a device's shifts locks the device's row before it reads the open shift, so that two
/// (a sign-in and an admin's end, say) decide one after the other, each on what the other
/// committed.
extension PostgresStore {
    /// The open shifts of the environment's devices, by device.
    static func holders(_ connection: PostgresConnection, environmentID: String) async throws -> [String: ShiftRecord] {
        let open = try await connection.rows(PostgresQuery(ShiftTables.openInEnvironment, environmentID)).map(shift)
        return Dictionary(open.map { ($0.sharedDeviceID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    static func openShift(_ connection: PostgresConnection, deviceID: String) async throws -> ShiftRecord? {
        try await connection.first(PostgresQuery(ShiftTables.open, deviceID)).map(shift)
    }

    static func shift(_ row: PostgresRandomAccessRow) throws -> ShiftRecord {
        ShiftRecord(
            id: try row.get("id"), sharedDeviceID: try row.get("shared_device_id"), userID: try row.get("user_id"),
            email: try row.get("email"), startedAt: Date(timeIntervalSince1970: try row.get("started_at")),
            endedAt: try row.get("ended_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            endReason: try row.get("end_reason", as: String?.self).flatMap(ShiftEndReason.init(rawValue:)),
            amr: ShiftTables.amr(try row.get("amr", as: String?.self)), pinIssuedBy: try row.get("pin_issued_by", as: String?.self))
    }
}
