import GRDB

extension SQLiteStore {
    /// Marks a device revoked and its refresh tokens with it; their sealed successors go too.
    static func revokeDevice(_ db: Database, id: String, now: Double) throws {
        try db.execute(cached: DeviceStatements.revoke.sqlite, arguments: [now, id])
        try db.execute(cached: DeviceStatements.revokeRefreshTokens.sqlite, arguments: [now, id])
    }
}
