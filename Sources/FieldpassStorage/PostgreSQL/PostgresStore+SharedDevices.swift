public import FieldpassDomain
public import Foundation
import PostgresNIO

/// Shared devices on PostgreSQL, each change planned by ``SharedDeviceRules``.
extension PostgresStore {
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
