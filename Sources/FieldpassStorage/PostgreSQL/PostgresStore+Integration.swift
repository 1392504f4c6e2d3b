public import FieldpassDomain
import Foundation
import PostgresNIO

extension PostgresStore {
    /// Positions become visible in the order they are given (see ``PostgresFeed``), so a
    /// reader that continues after the last position it saw never skips a realm.
    public func realmFeed(environmentID: String, after: Int64, initialized: Bool?, limit: Int) async throws -> [RealmFeedEntry] {
        try await placeCommitted(.realms)
        return try await read { connection in
            try await connection.rows(
                """
                SELECT r.feed_seq, r.path, r.user_id, u.email, r.initialized, u.signed_in_at IS NOT NULL AS signed_in, r.created_at
                FROM realms r JOIN users u ON u.id = r.user_id
                WHERE r.environment_id = \(environmentID) AND r.feed_seq > \(after)
                  AND (\(initialized)::boolean IS NULL OR r.initialized = \(initialized))
                ORDER BY r.feed_seq LIMIT \(limit)
                """
            ).map { row in
                try RealmFeedEntry(
                    feedSeq: row.get("feed_seq"), realmPath: row.get("path"), userID: row.get("user_id"),
                    email: row.get("email"), initialized: row.get("initialized"), signedIn: row.get("signed_in"),
                    createdAt: Date(timeIntervalSince1970: row.get("created_at"))
                )
            }
        }
    }

    public func realmFeedPosition() async throws -> Int64 {
        try await placeCommitted(.realms)
        return try await read { connection in
            try await connection.value("SELECT value FROM counters WHERE name = 'realm_feed'", as: Int64.self) ?? 0
        }
    }
}
