import FieldpassDomain
import Foundation
import GRDB

extension SQLiteStore {
    /// Stores the token and marks its device seen; a rotation's successor marks the token it
    /// replaces rotated.
    static func issueRefreshToken(_ db: Database, _ issue: RefreshTokenIssue, now: Double) throws {
        if let replaced = issue.replacedHash {
            try db.execute(
                cached: "UPDATE refresh_tokens SET rotated_at = ?, successor_hash = ?, successor_sealed = ? WHERE token_hash = ?",
                arguments: [now, issue.hash, issue.sealedSuccessor.map { Data($0) }, replaced]
            )
        }
        try db.execute(
            cached: """
                INSERT INTO refresh_tokens (token_hash, user_id, device_id, created_at, expires_at, max_expires_at, dpop_jkt)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [issue.hash, issue.userID, issue.deviceID, now, issue.expiresAt, issue.maxExpiresAt, issue.dpopThumbprint]
        )
        try db.execute(cached: "UPDATE devices SET last_seen_at = ? WHERE id = ?", arguments: [now, issue.deviceID])
    }
}
