public import FieldpassDomain
import Foundation
import GRDB

extension SQLiteStore {
    public func realmFeed(environmentID: String, after: Int64, initialized: Bool?, limit: Int) async throws -> [RealmFeedEntry] {
        try await read { db in
            var sql = """
                SELECT r.feed_seq, r.path, r.user_id, u.email, r.initialized, u.signed_in_at IS NOT NULL AS signed_in, r.created_at
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
            return try Row.fetchAll(db.cachedStatement(sql: sql), arguments: arguments).map { row in
                RealmFeedEntry(
                    feedSeq: row["feed_seq"], realmPath: row["path"], userID: row["user_id"], email: row["email"],
                    initialized: row["initialized"], signedIn: row["signed_in"], createdAt: Date(timeIntervalSince1970: row["created_at"])
                )
            }
        }
    }

    public func realmFeedPosition() async throws -> Int64 {
        try await read { db in
            try Int64.fetchOne(db.cachedStatement(sql: "SELECT value FROM counters WHERE name = 'realm_feed'")) ?? 0
        }
    }
}
