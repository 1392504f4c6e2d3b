public import FieldpassDomain
public import Foundation
import GRDB

/// Shared devices on SQLite, each change planned by ``SharedDeviceRules``.
extension SQLiteStore: SharedDeviceStore {
    public func createSharedDevice(
        name: String, teamID: String?, codeHash: String, enrollmentExpiresAt: Date, by caller: DirectoryCaller, now: Date
    ) async throws -> SharedDeviceRecord {
        try await write { db in
            let caller = try Self.authorize(db, caller, .read)
            let device = SharedDeviceRecord(
                id: UUID().uuidString.lowercased(), environmentID: caller.environmentID, name: name, teamID: teamID,
                createdAt: now, enrollmentExpiresAt: enrollmentExpiresAt)
            let teamExists =
                try teamID.map {
                    try Row.fetchOne(db.cachedStatement(sql: SharedDeviceTables.teamExists.sqlite), arguments: [$0, caller.environmentID])
                        != nil
                } ?? false
            let plan = try SharedDeviceRules.create(
                device, codeHash: codeHash, teamExists: teamExists, callerTeams: try Self.teamsOf(caller, db), by: caller)
            try Self.apply(plan, db, environmentID: caller.environmentID, now: now)
            return device
        }
    }

    public func sharedDevices(visibleTo caller: DirectoryCaller) async throws -> [SharedDeviceRecord] {
        try await read { db in
            let caller = try Self.authorize(db, caller, .read)
            let teams = try Self.teamsOf(caller, db)
            let holders = try Self.holders(db, environmentID: caller.environmentID)
            return try Row.fetchAll(db.cachedStatement(sql: SharedDeviceTables.all.sqlite), arguments: [caller.environmentID])
                .map(Self.sharedDevice)
                .filter { SharedDeviceRules.looksAfter($0, callerTeams: teams, caller) }
                .map { device in
                    var held = device
                    held.holder = holders[device.id]
                    return held
                }
        }
    }

    public func sharedDevice(id: String, visibleTo caller: DirectoryCaller) async throws -> SharedDeviceRecord? {
        try await read { db in
            let caller = try Self.authorize(db, caller, .read)
            guard var device = try Self.fetchSharedDevice(db, id: id, environmentID: caller.environmentID),
                SharedDeviceRules.looksAfter(device, callerTeams: try Self.teamsOf(caller, db), caller)
            else { return nil }
            device.holder = try Self.openShift(db, deviceID: id)
            return device
        }
    }

    public func enrollSharedDevice(codeHash: String, proof: DPoPRules.AcceptedProof, now: Date) async throws -> SharedDeviceRecord {
        try await write { db in
            // A replayed proof is refused as such, before anything about the code is told.
            try Self.takeProof(proof, db)
            let device = try Row.fetchOne(db.cachedStatement(sql: SharedDeviceTables.byCode.sqlite), arguments: [codeHash])
                .map(Self.sharedDevice)
            let keyInUse =
                try Row.fetchOne(db.cachedStatement(sql: SharedDeviceTables.keyInUse.sqlite), arguments: [proof.thumbprint]) != nil
            let (enrolled, plan) = try SharedDeviceRules.enroll(device, keyThumbprint: proof.thumbprint, keyInUse: keyInUse, now: now)
            try Self.apply(plan, db, environmentID: enrolled.environmentID, now: now)
            return enrolled
        }
    }

    public func unenrollSharedDevice(id: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { db in
            let caller = try Self.authorize(db, caller, .read)
            let device = try Self.fetchSharedDevice(db, id: id, environmentID: caller.environmentID)
            let plan = try SharedDeviceRules.unenroll(
                device, open: try Self.openShift(db, deviceID: id), callerTeams: try Self.teamsOf(caller, db), by: caller)
            try Self.apply(plan, db, environmentID: caller.environmentID, now: now)
        }
    }

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
