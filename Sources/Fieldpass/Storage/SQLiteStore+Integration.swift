public import Foundation
import GRDB

extension SQLiteStore {
    public func realmFeed(environmentID: String, after: Int64, initialized: Bool?, limit: Int) async throws -> [RealmFeedEntry] {
        try await pool.read { db in
            var sql = """
                SELECT r.feed_seq, r.path, r.user_id, u.email, r.initialized, r.created_at
                FROM realms r JOIN users u ON u.id = r.user_id
                WHERE r.environment_id = ? AND r.feed_seq > ?
                """
            var arguments: StatementArguments = [environmentID, after]
            if let initialized {
                sql += " AND r.initialized = ?"
                arguments += [initialized]
            }
            sql += " ORDER BY r.feed_seq LIMIT ?"
            arguments += [limit]
            return try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                RealmFeedEntry(
                    feedSeq: row["feed_seq"], realmPath: row["path"], userID: row["user_id"], email: row["email"],
                    initialized: row["initialized"], createdAt: Date(timeIntervalSince1970: row["created_at"])
                )
            }
        }
    }

    public func realmFeedPosition() async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(db, sql: "SELECT value FROM counters WHERE name = 'realm_feed'") ?? 0
        }
    }

    public func rotateRefreshToken(oldHash: String, newHash: String, newExpiry: Date, now: Date) async throws -> RefreshGrant? {
        try await write { db in
            let timestamp = now.timeIntervalSince1970
            guard let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT r.user_id, r.device_id, r.expires_at, r.revoked_at, u.environment_id
                    FROM refresh_tokens r JOIN users u ON u.id = r.user_id WHERE r.token_hash = ?
                    """,
                arguments: [oldHash]
            ) else { return nil }
            let userID: String = row["user_id"]
            let deviceID: String = row["device_id"]
            if row["revoked_at"] as Double? != nil {
                // A used token came back: someone holds a copy. Cut the device off (RFC 9700 4.14.2).
                try db.execute(
                    sql: "UPDATE refresh_tokens SET revoked_at = ? WHERE device_id = ? AND revoked_at IS NULL",
                    arguments: [timestamp, deviceID]
                )
                return nil
            }
            guard (row["expires_at"] as Double) > timestamp else { return nil }
            try db.execute(sql: "UPDATE refresh_tokens SET revoked_at = ? WHERE token_hash = ?", arguments: [timestamp, oldHash])
            try db.execute(
                sql: "INSERT INTO refresh_tokens (token_hash, user_id, device_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [newHash, userID, deviceID, timestamp, newExpiry.timeIntervalSince1970]
            )
            return RefreshGrant(userID: userID, deviceID: deviceID, environmentID: row["environment_id"])
        }
    }
}
