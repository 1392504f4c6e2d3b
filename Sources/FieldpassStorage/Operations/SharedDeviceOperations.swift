public import FieldpassDomain
public import Foundation

/// Shared devices, each change planned by ``SharedDeviceRules``.
extension TransactionalStore {
    public func createSharedDevice(
        name: String, teamID: String?, codeHash: String, enrollmentExpiresAt: Date, by caller: DirectoryCaller, now: Date
    ) async throws -> SharedDeviceRecord {
        try await writing { transaction in
            let caller = try await transaction.authorize(caller, .read)
            let device = SharedDeviceRecord(
                id: UUID().uuidString.lowercased(), environmentID: caller.environmentID, name: name, teamID: teamID,
                createdAt: now, enrollmentExpiresAt: enrollmentExpiresAt)
            var teamExists = false
            if let teamID { teamExists = try await transaction.first(SharedDeviceTables.teamExists, teamID, caller.environmentID) != nil }
            try await transaction.execute(SharedDeviceTables.takeTurnsOnName, caller.environmentID, name)
            let namesakes = try await transaction.rows(SharedDeviceTables.namesakes, caller.environmentID, name)
                .map(SharedDeviceRecord.init(row:))
            let plan = try SharedDeviceRules.create(
                device, codeHash: codeHash, teamExists: teamExists, namesakes: namesakes,
                callerTeams: try await transaction.teams(of: caller), by: caller)
            try await transaction.apply(plan, environmentID: caller.environmentID, now: now)
            return device
        }
    }

    public func sharedDevices(visibleTo caller: DirectoryCaller) async throws -> [SharedDeviceRecord] {
        try await reading { transaction in
            let caller = try await transaction.authorize(caller, .read)
            let teams = try await transaction.teams(of: caller)
            let holders = try await transaction.shiftHolders(environmentID: caller.environmentID)
            return try await transaction.rows(SharedDeviceTables.all, caller.environmentID)
                .map(SharedDeviceRecord.init(row:))
                .filter { DirectoryAuthority.looksAfter($0, callerTeams: teams, caller) }
                .map { device in
                    var held = device
                    held.holder = holders[device.id]
                    return held
                }
        }
    }

    public func sharedDevice(id: String, visibleTo caller: DirectoryCaller) async throws -> SharedDeviceRecord? {
        try await reading { transaction in
            let caller = try await transaction.authorize(caller, .read)
            guard var device = try await transaction.sharedDevice(id: id, environmentID: caller.environmentID),
                DirectoryAuthority.looksAfter(device, callerTeams: try await transaction.teams(of: caller), caller)
            else { return nil }
            device.holder = try await transaction.openShift(deviceID: id)
            return device
        }
    }

    public func enrollSharedDevice(codeHash: String, proof: DPoPRules.AcceptedProof, now: Date) async throws -> SharedDeviceRecord {
        try await writing { transaction in
            // A replayed proof is refused as such, before anything about the code is told.
            try await transaction.takeProof(proof)
            // Locked: of two enrollments with one code, the second finds it used once the first commits.
            let device = try await transaction.first(SharedDeviceTables.byCode, codeHash, locking: .sharedDevices)
                .map(SharedDeviceRecord.init(row:))
            let keyInUse = try await transaction.first(SharedDeviceTables.keyInUse, proof.thumbprint) != nil
            let (enrolled, plan) = try SharedDeviceRules.enroll(device, keyThumbprint: proof.thumbprint, keyInUse: keyInUse, now: now)
            do {
                try await transaction.apply(plan, environmentID: enrolled.environmentID, now: now)
            } catch let error where transaction.isUniqueViolation(error) {
                // The key enrolled another device in a transaction that committed after the check.
                throw EnrollmentRefused()
            }
            return enrolled
        }
    }

    public func unenrollSharedDevice(id: String, by caller: DirectoryCaller, now: Date) async throws {
        try await writing { transaction in
            let caller = try await transaction.authorize(caller, .read)
            let device = try await transaction.sharedDevice(id: id, environmentID: caller.environmentID, locking: true)
            let plan = try SharedDeviceRules.unenroll(
                device, open: try await transaction.openShift(deviceID: id), callerTeams: try await transaction.teams(of: caller),
                by: caller)
            try await transaction.apply(plan, environmentID: caller.environmentID, now: now)
        }
        // Its shift's tokens count as revoked here once the request is answered.
        await revocationsCaughtUp()
    }
}
