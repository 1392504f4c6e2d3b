public import FieldpassDomain
public import Foundation
import PostgresNIO

/// Shifts on shared devices on PostgreSQL, each change planned by ``ShiftRules``. Every change
/// to a device's shifts locks the device's row before it reads the open shift, so that two
/// (a sign-in and an admin's end, say) decide one after the other, each on what the other
/// committed.
extension PostgresStore {
    public func sharedDevice(keyThumbprint: String) async throws -> SharedDeviceRecord? {
        try await read { connection in
            try await connection.first(PostgresQuery(SharedDeviceTables.byKey, keyThumbprint)).map(Self.sharedDevice)
        }
    }

    public func endShift(provenBy proof: DPoPRules.AcceptedProof, now: Date) async throws -> ShiftRecord? {
        let ended = try await write { connection -> ShiftRecord? in
            try await Self.takeProof(proof, connection)
            var query = PostgresQuery(SharedDeviceTables.byKey, proof.thumbprint)
            query.sql += lockClause(true)
            guard let device = SharedDeviceRules.acting(try await connection.first(query).map(Self.sharedDevice)) else {
                throw DirectoryError.unknownDevice
            }
            guard let open = try await Self.openShift(connection, deviceID: device.id) else { return nil }
            try await Self.apply(ShiftRules.signOut(open), connection, environmentID: device.environmentID, now: now)
            return open.ended(.signedOut, at: now)
        }
        await revocationsCaughtUp()
        return ended
    }

    public func endShift(deviceID: String, by caller: DirectoryCaller, now: Date) async throws -> ShiftRecord? {
        let ended = try await write { connection -> ShiftRecord? in
            let caller = try await Self.authorize(connection, caller, .read)
            let device = try await Self.fetchSharedDevice(connection, id: deviceID, environmentID: caller.environmentID, forUpdate: true)
            let open = try await Self.openShift(connection, deviceID: deviceID)
            let plan = try ShiftRules.endByAdmin(
                device, open: open, callerTeams: try await Self.teamsOf(caller, connection), by: caller)
            try await Self.apply(plan, connection, environmentID: caller.environmentID, now: now)
            return open?.ended(.endedByAdmin, at: now)
        }
        await revocationsCaughtUp()
        return ended
    }

    public func shifts(deviceID: String, visibleTo caller: DirectoryCaller, limit: Int) async throws -> [ShiftRecord]? {
        try await read { connection in
            let caller = try await Self.authorize(connection, caller, .read)
            guard let device = try await Self.fetchSharedDevice(connection, id: deviceID, environmentID: caller.environmentID),
                SharedDeviceRules.looksAfter(device, callerTeams: try await Self.teamsOf(caller, connection), caller)
            else { return nil }
            return try await connection.rows(PostgresQuery(ShiftTables.history, deviceID, limit)).map(Self.shift)
        }
    }

    public func shifts(userID: String, environmentID: String, limit: Int) async throws -> [ShiftRecord] {
        try await read { connection in
            try await connection.rows(PostgresQuery(ShiftTables.ofPerson, userID, environmentID, limit)).map(Self.shift)
        }
    }

    public func openShift(keyThumbprint: String) async throws -> ShiftRecord? {
        try await read { connection in
            guard
                let device = SharedDeviceRules.acting(
                    try await connection.first(PostgresQuery(SharedDeviceTables.byKey, keyThumbprint)).map(Self.sharedDevice))
            else { throw DirectoryError.unknownDevice }
            return try await Self.openShift(connection, deviceID: device.id)
        }
    }

    public func shiftEvents(keyThumbprint: String, after: Int, limit: Int) async throws -> [ShiftEvent]? {
        try await read { connection in
            guard
                let device = SharedDeviceRules.acting(
                    try await connection.first(PostgresQuery(SharedDeviceTables.byKey, keyThumbprint)).map(Self.sharedDevice))
            else { return nil }
            return try await connection.rows(PostgresQuery(ShiftTables.eventsAfter, device.id, after, limit)).compactMap(Self.shiftEvent)
        }
    }

    public func endOverdueShifts(limits: ShiftLimits, now: Date, limit: Int) async throws -> Int {
        let timestamp = now.timeIntervalSince1970
        let overdue = try await read { connection in
            try await connection.rows(
                PostgresQuery(
                    ShiftTables.overdue, timestamp - Double(limits.maxShift), timestamp - Double(limits.idleTimeout), limit)
            ).map { (try Self.shift($0), try $0.get("environment_id", as: String.self)) }
        }
        var ended = 0
        for (candidate, environmentID) in overdue {
            // Decided again under the device's lock, on the shift and its device as they are now.
            let endedOne = try await write { connection -> Bool in
                try await connection.execute("SELECT 1 FROM shared_devices WHERE id = \(candidate.sharedDeviceID) FOR UPDATE")
                guard let open = try await Self.openShift(connection, deviceID: candidate.sharedDeviceID), open.id == candidate.id,
                    let lastSeen = try await connection.value("SELECT last_seen_at FROM devices WHERE id = \(open.id)", as: Double.self),
                    let plan = ShiftRules.limit(open, deviceLastSeenAt: lastSeen, limits: limits, now: timestamp)
                else { return false }
                try await Self.apply(plan, connection, environmentID: environmentID, now: now)
                return true
            }
            if endedOne { ended += 1 }
        }
        if ended > 0 { await revocationsCaughtUp() }
        return ended
    }

    /// Starts the shift a sign-in's tokens name, in the sign-in's transaction (``ShiftRules/start``).
    static func startShift(_ shift: ShiftRecord, environmentID: String, _ connection: PostgresConnection, now: Date) async throws {
        let device = try await fetchSharedDevice(connection, id: shift.sharedDeviceID, environmentID: environmentID, forUpdate: true)
        var open: ShiftRecord?
        if let device { open = try await openShift(connection, deviceID: device.id) }
        try await apply(ShiftRules.start(shift, device: device, open: open), connection, environmentID: environmentID, now: now)
    }

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

    private static func shiftEvent(_ row: PostgresRandomAccessRow) throws -> ShiftEvent? {
        guard let type = ShiftEvent.Kind(rawValue: try row.get("type", as: String.self)) else { return nil }
        return ShiftEvent(
            seq: try row.get("seq"), type: type, shiftID: try row.get("shift_id"), userID: try row.get("user_id"),
            email: try row.get("email"), reason: try row.get("reason", as: String?.self).flatMap(ShiftEndReason.init(rawValue:)),
            at: Date(timeIntervalSince1970: try row.get("at")))
    }
}
