public import FieldpassDomain
public import Foundation
import GRDB

/// Shifts on shared devices on SQLite, each change planned by ``ShiftRules``.
extension SQLiteStore {
    public func sharedDevice(keyThumbprint: String) async throws -> SharedDeviceRecord? {
        try await read { db in
            try Row.fetchOne(db.cachedStatement(sql: SharedDeviceTables.byKey.sqlite), arguments: [keyThumbprint]).map(Self.sharedDevice)
        }
    }

    public func endShift(provenBy proof: DPoPRules.AcceptedProof, now: Date) async throws -> ShiftRecord? {
        try await write { db in
            try Self.takeProof(proof, db)
            guard
                let device = SharedDeviceRules.acting(
                    try Row.fetchOne(db.cachedStatement(sql: SharedDeviceTables.byKey.sqlite), arguments: [proof.thumbprint])
                        .map(Self.sharedDevice))
            else { throw DirectoryError.unknownDevice }
            guard let open = try Self.openShift(db, deviceID: device.id) else { return nil }
            try Self.apply(ShiftRules.signOut(open), db, environmentID: device.environmentID, now: now)
            return open.ended(.signedOut, at: now)
        }
    }

    public func endShift(deviceID: String, by caller: DirectoryCaller, now: Date) async throws -> ShiftRecord? {
        try await write { db in
            let caller = try Self.authorize(db, caller, .read)
            let device = try Self.fetchSharedDevice(db, id: deviceID, environmentID: caller.environmentID)
            let open = try Self.openShift(db, deviceID: deviceID)
            let plan = try ShiftRules.endByAdmin(device, open: open, callerTeams: try Self.teamsOf(caller, db), by: caller)
            try Self.apply(plan, db, environmentID: caller.environmentID, now: now)
            return open?.ended(.endedByAdmin, at: now)
        }
    }

    public func shifts(deviceID: String, visibleTo caller: DirectoryCaller, limit: Int) async throws -> [ShiftRecord]? {
        try await read { db in
            let caller = try Self.authorize(db, caller, .read)
            guard let device = try Self.fetchSharedDevice(db, id: deviceID, environmentID: caller.environmentID),
                SharedDeviceRules.looksAfter(device, callerTeams: try Self.teamsOf(caller, db), caller)
            else { return nil }
            return try Row.fetchAll(db.cachedStatement(sql: ShiftTables.history.sqlite), arguments: [deviceID, limit]).map(Self.shift)
        }
    }

    public func shifts(userID: String, environmentID: String, limit: Int) async throws -> [ShiftRecord] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: ShiftTables.ofPerson.sqlite), arguments: [userID, environmentID, limit]).map(
                Self.shift)
        }
    }

    public func openShift(keyThumbprint: String) async throws -> ShiftRecord? {
        try await read { db in
            guard
                let device = SharedDeviceRules.acting(
                    try Row.fetchOne(db.cachedStatement(sql: SharedDeviceTables.byKey.sqlite), arguments: [keyThumbprint])
                        .map(Self.sharedDevice))
            else { throw DirectoryError.unknownDevice }
            return try Self.openShift(db, deviceID: device.id)
        }
    }

    public func shiftEvents(keyThumbprint: String, after: Int, limit: Int) async throws -> [ShiftEvent]? {
        try await read { db in
            guard
                let device = SharedDeviceRules.acting(
                    try Row.fetchOne(db.cachedStatement(sql: SharedDeviceTables.byKey.sqlite), arguments: [keyThumbprint])
                        .map(Self.sharedDevice))
            else { return nil }
            return try Row.fetchAll(db.cachedStatement(sql: ShiftTables.eventsAfter.sqlite), arguments: [device.id, after, limit])
                .compactMap(Self.shiftEvent)
        }
    }

    public func endOverdueShifts(limits: ShiftLimits, now: Date, limit: Int) async throws -> Int {
        try await write { db in
            let timestamp = now.timeIntervalSince1970
            let overdue = try Row.fetchAll(
                db.cachedStatement(sql: ShiftTables.overdue.sqlite),
                arguments: [timestamp - Double(limits.maxShift), timestamp - Double(limits.idleTimeout), limit]
            )
            var ended = 0
            for row in overdue {
                let shift = Self.shift(row)
                guard let plan = ShiftRules.limit(shift, deviceLastSeenAt: row["last_seen_at"], limits: limits, now: timestamp)
                else { continue }
                try Self.apply(plan, db, environmentID: row["environment_id"], now: now)
                ended += 1
            }
            return ended
        }
    }

    /// Starts the shift a sign-in's tokens name, in the sign-in's transaction (``ShiftRules/start``).
    static func startShift(_ shift: ShiftRecord, environmentID: String, _ db: Database, now: Date) throws {
        let device = try fetchSharedDevice(db, id: shift.sharedDeviceID, environmentID: environmentID)
        let plan = ShiftRules.start(shift, device: device, open: try device.flatMap { try openShift(db, deviceID: $0.id) })
        try apply(plan, db, environmentID: environmentID, now: now)
    }

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

    private static func shiftEvent(_ row: Row) -> ShiftEvent? {
        guard let type = (row["type"] as String?).flatMap(ShiftEvent.Kind.init(rawValue:)) else { return nil }
        return ShiftEvent(
            seq: row["seq"], type: type, shiftID: row["shift_id"], userID: row["user_id"], email: row["email"],
            reason: (row["reason"] as String?).flatMap(ShiftEndReason.init(rawValue:)),
            at: Date(timeIntervalSince1970: row["at"]))
    }
}
