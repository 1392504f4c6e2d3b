public import FieldpassDomain
public import Foundation

/// Shifts on shared devices, each change planned by ``ShiftRules``. Every change to a
/// device's shifts locks the device's row before it reads the open shift, so that two (a
/// sign-in and an admin's end, say) decide one after the other, each on what the other
/// committed.
extension TransactionalStore {
    public func sharedDevice(keyThumbprint: String) async throws -> SharedDeviceRecord? {
        try await reading { transaction in try await transaction.sharedDevice(keyThumbprint: keyThumbprint) }
    }

    public func endShift(provenBy proof: DPoPRules.AcceptedProof, now: Date) async throws -> ShiftRecord? {
        let ended = try await writing { transaction -> ShiftRecord? in
            try await transaction.takeProof(proof)
            let device = try await transaction.sharedDevice(keyThumbprint: proof.thumbprint, locking: true)
            guard let device = SharedDeviceRules.acting(device) else { throw DirectoryError.unknownDevice }
            guard let open = try await transaction.openShift(deviceID: device.id) else { return nil }
            try await transaction.apply(ShiftRules.signOut(open), environmentID: device.environmentID, now: now)
            return open.ended(.signedOut, at: now)
        }
        await revocationsCaughtUp()
        return ended
    }

    public func endShift(deviceID: String, by caller: DirectoryCaller, now: Date) async throws -> ShiftRecord? {
        let ended = try await writing { transaction -> ShiftRecord? in
            let caller = try await transaction.authorize(caller, .read)
            let device = try await transaction.sharedDevice(id: deviceID, environmentID: caller.environmentID, locking: true)
            let open = try await transaction.openShift(deviceID: deviceID)
            let plan = try ShiftRules.endByAdmin(device, open: open, callerTeams: try await transaction.teams(of: caller), by: caller)
            try await transaction.apply(plan, environmentID: caller.environmentID, now: now)
            return open?.ended(.endedByAdmin, at: now)
        }
        await revocationsCaughtUp()
        return ended
    }

    public func shifts(deviceID: String, visibleTo caller: DirectoryCaller, limit: Int) async throws -> [ShiftRecord]? {
        try await reading { transaction in
            let caller = try await transaction.authorize(caller, .read)
            guard let device = try await transaction.sharedDevice(id: deviceID, environmentID: caller.environmentID),
                DirectoryAuthority.looksAfter(device, callerTeams: try await transaction.teams(of: caller), caller)
            else { return nil }
            return try await transaction.rows(ShiftTables.history, deviceID, limit).map(ShiftRecord.init(row:))
        }
    }

    public func shifts(userID: String, environmentID: String, limit: Int) async throws -> [ShiftRecord] {
        try await reading { transaction in
            try await transaction.rows(ShiftTables.ofPerson, userID, environmentID, limit).map(ShiftRecord.init(row:))
        }
    }

    public func openShift(keyThumbprint: String) async throws -> ShiftRecord? {
        try await reading { transaction in
            guard let device = SharedDeviceRules.acting(try await transaction.sharedDevice(keyThumbprint: keyThumbprint)) else {
                throw DirectoryError.unknownDevice
            }
            return try await transaction.openShift(deviceID: device.id)
        }
    }

    public func shiftEvents(keyThumbprint: String, after: Int, limit: Int) async throws -> [ShiftEvent]? {
        try await reading { transaction in
            guard let device = SharedDeviceRules.acting(try await transaction.sharedDevice(keyThumbprint: keyThumbprint)) else {
                return nil
            }
            return try await transaction.rows(ShiftTables.eventsAfter, device.id, after, limit).compactMap(ShiftEvent.init(row:))
        }
    }

    /// Each overdue shift is decided again in a transaction of its own, under its device's
    /// lock, on the shift and its device as they are then.
    public func endOverdueShifts(limits: ShiftLimits, now: Date, limit: Int) async throws -> Int {
        let timestamp = now.timeIntervalSince1970
        let overdue = try await reading { transaction in
            try await transaction.rows(
                ShiftTables.overdue, timestamp - Double(limits.maxShift), timestamp - Double(limits.idleTimeout), limit
            ).map { (try ShiftRecord(row: $0), try $0.column("environment_id", as: String.self)) }
        }
        var ended = 0
        for (candidate, environmentID) in overdue {
            let endedOne = try await writing { transaction -> Bool in
                guard
                    try await transaction.sharedDevice(id: candidate.sharedDeviceID, environmentID: environmentID, locking: true) != nil,
                    let open = try await transaction.openShift(deviceID: candidate.sharedDeviceID), open.id == candidate.id,
                    let lastSeen = try await transaction.value(DeviceStatements.lastSeen, open.id, as: Double.self),
                    let plan = ShiftRules.limit(open, deviceLastSeenAt: lastSeen, limits: limits, now: timestamp)
                else { return false }
                try await transaction.apply(plan, environmentID: environmentID, now: now)
                return true
            }
            if endedOne { ended += 1 }
        }
        if ended > 0 { await revocationsCaughtUp() }
        return ended
    }
}

extension StoreTransaction {
    /// Starts the shift a sign-in's tokens name, in the sign-in's transaction (``ShiftRules/start``).
    func startShift(_ shift: ShiftRecord, environmentID: String, now: Date) async throws {
        let device = try await sharedDevice(id: shift.sharedDeviceID, environmentID: environmentID, locking: true)
        var open: ShiftRecord?
        if let device { open = try await openShift(deviceID: device.id) }
        try await apply(ShiftRules.start(shift, device: device, open: open), environmentID: environmentID, now: now)
    }

    /// The open shifts of the environment's devices, by device.
    func shiftHolders(environmentID: String) async throws -> [String: ShiftRecord] {
        let open = try await rows(ShiftTables.openInEnvironment, environmentID).map(ShiftRecord.init(row:))
        return Dictionary(open.map { ($0.sharedDeviceID, $0) }, uniquingKeysWith: { first, _ in first })
    }
}
