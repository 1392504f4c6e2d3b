public import FieldpassDomain
public import Foundation
import PostgresNIO

/// Shared devices on PostgreSQL, each change planned by ``SharedDeviceRules``.
extension PostgresStore: SharedDeviceStore {
    public func createSharedDevice(
        name: String, teamID: String?, codeHash: String, enrollmentExpiresAt: Date, by caller: DirectoryCaller, now: Date
    ) async throws -> SharedDeviceRecord {
        try await write { connection in
            let caller = try await Self.authorize(connection, caller, .read)
            let device = SharedDeviceRecord(
                id: UUID().uuidString.lowercased(), environmentID: caller.environmentID, name: name, teamID: teamID,
                createdAt: now, enrollmentExpiresAt: enrollmentExpiresAt)
            var teamExists = false
            if let teamID {
                teamExists =
                    try await connection.first(PostgresQuery(SharedDeviceTables.teamExists, teamID, caller.environmentID)) != nil
            }
            let plan = try SharedDeviceRules.create(
                device, codeHash: codeHash, teamExists: teamExists, callerTeams: try await Self.teamsOf(caller, connection), by: caller)
            try await Self.apply(plan, connection, environmentID: caller.environmentID, now: now)
            return device
        }
    }

    public func sharedDevices(visibleTo caller: DirectoryCaller) async throws -> [SharedDeviceRecord] {
        try await read { connection in
            let caller = try await Self.authorize(connection, caller, .read)
            let teams = try await Self.teamsOf(caller, connection)
            let holders = try await Self.holders(connection, environmentID: caller.environmentID)
            return try await connection.rows(PostgresQuery(SharedDeviceTables.all, caller.environmentID))
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
        try await read { connection in
            let caller = try await Self.authorize(connection, caller, .read)
            guard var device = try await Self.fetchSharedDevice(connection, id: id, environmentID: caller.environmentID),
                SharedDeviceRules.looksAfter(device, callerTeams: try await Self.teamsOf(caller, connection), caller)
            else { return nil }
            device.holder = try await Self.openShift(connection, deviceID: id)
            return device
        }
    }

    public func enrollSharedDevice(codeHash: String, proof: DPoPRules.AcceptedProof, now: Date) async throws -> SharedDeviceRecord {
        try await write { connection in
            // A replayed proof is refused as such, before anything about the code is told.
            try await Self.takeProof(proof, connection)
            // Locked: of two enrollments with one code, the second finds it used once the first commits.
            var query = PostgresQuery(SharedDeviceTables.byCode, codeHash)
            query.sql += lockClause(true)
            let device = try await connection.first(query).map(Self.sharedDevice)
            let keyInUse = try await connection.first(PostgresQuery(SharedDeviceTables.keyInUse, proof.thumbprint)) != nil
            let (enrolled, plan) = try SharedDeviceRules.enroll(device, keyThumbprint: proof.thumbprint, keyInUse: keyInUse, now: now)
            do {
                try await Self.apply(plan, connection, environmentID: enrolled.environmentID, now: now)
            } catch let error as PSQLError where Self.isUniqueViolation(error) {
                // The key enrolled another device in a transaction that committed after the check.
                throw EnrollmentRefused()
            }
            return enrolled
        }
    }

    public func unenrollSharedDevice(id: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { connection in
            let caller = try await Self.authorize(connection, caller, .read)
            let device = try await Self.fetchSharedDevice(connection, id: id, environmentID: caller.environmentID, forUpdate: true)
            let plan = try SharedDeviceRules.unenroll(
                device, open: try await Self.openShift(connection, deviceID: id), callerTeams: try await Self.teamsOf(caller, connection),
                by: caller)
            try await Self.apply(plan, connection, environmentID: caller.environmentID, now: now)
        }
        // Its shift's tokens count as revoked here once the request is answered.
        await revocationsCaughtUp()
    }

    /// The calling person's teams; none for callers who are no person.
    static func teamsOf(_ caller: DirectoryCaller, _ connection: PostgresConnection) async throws -> Set<String> {
        guard let person = caller.person else { return [] }
        return Set(try await connection.values(PostgresQuery(SharedDeviceTables.teamsOf, person.id), as: String.self))
    }

    static func fetchSharedDevice(
        _ connection: PostgresConnection, id: String, environmentID: String, forUpdate: Bool = false
    ) async throws -> SharedDeviceRecord? {
        var query = PostgresQuery(SharedDeviceTables.one, id, environmentID)
        query.sql += lockClause(forUpdate)
        return try await connection.first(query).map(sharedDevice)
    }

    static func sharedDevice(_ row: PostgresRandomAccessRow) throws -> SharedDeviceRecord {
        SharedDeviceRecord(
            id: try row.get("id"), environmentID: try row.get("environment_id"), name: try row.get("name"),
            teamID: try row.get("team_id"),
            createdAt: Date(timeIntervalSince1970: try row.get("created_at")),
            enrollmentExpiresAt: Date(timeIntervalSince1970: try row.get("enrollment_expires_at")),
            enrolledAt: try row.get("enrolled_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            keyThumbprint: try row.get("key_thumbprint"),
            unenrolledAt: try row.get("unenrolled_at", as: Double?.self).map(Date.init(timeIntervalSince1970:))
        )
    }
}
