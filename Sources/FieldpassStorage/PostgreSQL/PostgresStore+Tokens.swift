import FieldpassDomain
import Foundation
import PostgresNIO

extension PostgresStore {
    /// Stores the token and marks its device seen, in one statement. A rotation's successor
    /// marks the token it replaces rotated in the same statement (a token's hash is never NULL,
    /// so without one that part changes nothing).
    static func issueRefreshToken(_ connection: PostgresConnection, _ issue: RefreshTokenIssue, now: Double) async throws {
        try await connection.execute(
            """
            WITH seen AS (UPDATE devices SET last_seen_at = \(now) WHERE id = \(issue.deviceID)), rotated AS (
                UPDATE refresh_tokens
                SET rotated_at = \(now), successor_hash = \(issue.hash), successor_sealed = \(issue.sealedSuccessor.map { Data($0) })
                WHERE token_hash = \(issue.replacedHash)
            )
            INSERT INTO refresh_tokens (token_hash, user_id, device_id, created_at, expires_at, max_expires_at, dpop_jkt)
            VALUES (\(issue.hash), \(issue.userID), \(issue.deviceID), \(now), \(issue.expiresAt), \(issue.maxExpiresAt),
                    \(issue.dpopThumbprint))
            """
        )
    }
}
