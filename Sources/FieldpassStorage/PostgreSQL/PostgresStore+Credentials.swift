import FieldpassDomain
import PostgresNIO

extension PostgresStore {
    /// Marks a device revoked and its refresh tokens with it; their sealed successors go too.
    /// Callers hold the lock of the device's user.
    static func revokeDevice(_ connection: PostgresConnection, id: String, now: Double) async throws {
        try await connection.execute(PostgresQuery(DeviceStatements.revoke, now, id))
        try await announce(.device(id: id), on: connection)
        try await connection.execute(PostgresQuery(DeviceStatements.revokeRefreshTokens, now, id))
    }
}
