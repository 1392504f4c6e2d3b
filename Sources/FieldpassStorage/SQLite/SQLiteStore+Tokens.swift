public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func rotateRefreshToken(_ rotation: RefreshRotation, now: Date) async throws -> RefreshOutcome {
        try await writeGrouped { db in
            let timestamp = now.timeIntervalSince1970
            guard let row = try Self.fetchRefreshRow(db, hash: rotation.oldHash) else { return .refused }
            let grant = Self.grant(row)
            guard Self.isHonoured(row, now: timestamp) else { return .refused }
            if let rotatedAt = row["rotated_at"] as Double? {
                if timestamp - rotatedAt <= Double(rotation.grace), let sealed = row["successor_sealed"] as Data?,
                    let successor = try Self.fetchRefreshRow(db, hash: row["successor_hash"]),
                    successor["rotated_at"] as Double? == nil
                {
                    return .retried(grant, sealedSuccessor: Array(sealed))
                }
                // A used token came back: someone holds a copy. Cut the device off (RFC 9700 4.14.2).
                try Self.revokeDevice(db, id: grant.deviceID, now: timestamp)
                try Self.audit(
                    db, environmentID: grant.environmentID, actor: "fieldpass", action: "device.revoke",
                    target: "user:\(grant.userID)", before: nil,
                    after: ["device_id": grant.deviceID, "reason": "refresh_token_reuse"], now: now
                )
                return .refused
            }
            let maxExpiry: Double = row["max_expires_at"]
            try db.execute(
                cached: "UPDATE refresh_tokens SET rotated_at = ?, successor_hash = ?, successor_sealed = ? WHERE token_hash = ?",
                arguments: [timestamp, rotation.newHash, rotation.sealedSuccessor.map { Data($0) }, rotation.oldHash]
            )
            try Self.insertRefreshToken(
                db, hash: rotation.newHash, userID: grant.userID, deviceID: grant.deviceID, now: timestamp,
                expiresAt: min(timestamp + Double(rotation.ttl), maxExpiry), maxExpiresAt: maxExpiry
            )
            try db.execute(cached: "UPDATE devices SET last_seen_at = ? WHERE id = ?", arguments: [timestamp, grant.deviceID])
            return .rotated(grant)
        }
    }

    public func liveRefreshToken(hash: String, now: Date) async throws -> LiveRefreshToken? {
        try await pool.read { db in
            guard let row = try Self.fetchRefreshRow(db, hash: hash), Self.isHonoured(row, now: now.timeIntervalSince1970),
                row["rotated_at"] as Double? == nil
            else { return nil }
            return LiveRefreshToken(
                grant: Self.grant(row), issuedAt: Date(timeIntervalSince1970: row["created_at"]),
                expiresAt: Date(timeIntervalSince1970: row["expires_at"])
            )
        }
    }

    public func revokeRefreshToken(hash: String, now: Date) async throws -> Bool {
        try await write { db in
            guard let row = try Self.fetchRefreshRow(db, hash: hash) else { return false }
            let grant = Self.grant(row)
            guard row["device_revoked_at"] as Double? == nil else { return true }
            try Self.revokeDevice(db, id: grant.deviceID, now: now.timeIntervalSince1970)
            try Self.audit(
                db, environmentID: grant.environmentID, actor: "user:\(grant.userID)", action: "device.revoke",
                target: "user:\(grant.userID)", before: nil,
                after: ["device_id": grant.deviceID, "reason": "token_revocation"], now: now
            )
            return true
        }
    }

    public func revokeAccessToken(jti: String, expiresAt: Date) async throws {
        try await write { db in
            try db.execute(
                cached: "INSERT INTO revoked_tokens (jti, expires_at) VALUES (?, ?) ON CONFLICT (jti) DO NOTHING",
                arguments: [jti, expiresAt.timeIntervalSince1970]
            )
        }
    }

    public func standing(jti: String, userID: String?, deviceID: String?, environmentID: String) async throws -> TokenStanding {
        try await pool.read { db in
            let revoked = try Bool.fetchOne(
                db.cachedStatement(sql: """
                    SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?)
                        OR EXISTS (SELECT 1 FROM devices WHERE id = ? AND revoked_at IS NOT NULL)
                    """),
                arguments: [jti, deviceID]
            ) ?? false
            let user = try userID.flatMap { try Self.fetchUser(db, id: $0, environmentID: environmentID) }
            return TokenStanding(user: user, revoked: revoked)
        }
    }

    /// Stores a refresh token by its hash, the only form of it that is kept.
    static func insertRefreshToken(
        _ db: Database, hash: String, userID: String, deviceID: String, now: Double, expiresAt: Double, maxExpiresAt: Double
    ) throws {
        try db.execute(
            cached: """
                INSERT INTO refresh_tokens (token_hash, user_id, device_id, created_at, expires_at, max_expires_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [hash, userID, deviceID, now, expiresAt, maxExpiresAt]
        )
    }

    /// Deletes and clears what ``TokenPurge`` says no answer depends on any more.
    static func purgeSpentTokens(_ db: Database, now: Double) throws {
        let purge = TokenPurge(now: now)
        try db.execute(cached: "DELETE FROM revoked_tokens WHERE expires_at <= ?", arguments: [purge.expiredBy])
        try db.execute(cached: "DELETE FROM refresh_tokens WHERE expires_at <= ?", arguments: [purge.expiredBy])
        try db.execute(
            cached: """
                DELETE FROM refresh_tokens WHERE rotated_at < ?
                  AND successor_hash IN (SELECT token_hash FROM refresh_tokens WHERE rotated_at IS NOT NULL)
                """,
            arguments: [purge.rotatedBefore]
        )
        try db.execute(
            cached: "UPDATE refresh_tokens SET successor_sealed = NULL WHERE successor_sealed IS NOT NULL AND rotated_at < ?",
            arguments: [purge.rotatedBefore]
        )
    }

    private static func fetchRefreshRow(_ db: Database, hash: String) throws -> Row? {
        try Row.fetchOne(
            db.cachedStatement(sql: """
                SELECT r.*, u.environment_id, u.disabled_at, d.revoked_at AS device_revoked_at
                FROM refresh_tokens r JOIN users u ON u.id = r.user_id JOIN devices d ON d.id = r.device_id
                WHERE r.token_hash = ?
                """),
            arguments: [hash]
        )
    }

    /// Not revoked, unexpired, and its device and user still in good standing.
    private static func isHonoured(_ row: Row, now: Double) -> Bool {
        row["revoked_at"] as Double? == nil && row["device_revoked_at"] as Double? == nil
            && row["disabled_at"] as Double? == nil && (row["expires_at"] as Double) > now
    }

    private static func grant(_ row: Row) -> RefreshGrant {
        RefreshGrant(userID: row["user_id"], deviceID: row["device_id"], environmentID: row["environment_id"])
    }
}
