public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func rotateRefreshToken(_ rotation: RefreshRotation, now: Date) async throws -> RefreshOutcome {
        try await writeGrouped { db in
            let timestamp = now.timeIntervalSince1970
            try Self.takeProof(rotation.proof, db)
            guard let token = try Self.fetchRefreshToken(db, hash: rotation.oldHash) else { return .refused }
            var successor: RefreshRules.Token?
            if RefreshRules.needsSuccessorLookup(token, grace: rotation.grace, now: timestamp), let hash = token.successorHash {
                successor = try Self.fetchRefreshToken(db, hash: hash)
            }
            let decision = RefreshRules.decide(token, successor: successor, rotation: rotation, now: timestamp)
            try Self.apply(decision.plan, db, environmentID: token.grant.environmentID, now: now)
            return decision.outcome
        }
    }

    public func liveRefreshToken(hash: String, now: Date) async throws -> LiveRefreshToken? {
        try await read { db in
            guard let token = try Self.fetchRefreshToken(db, hash: hash), token.isLive(now: now.timeIntervalSince1970) else { return nil }
            return LiveRefreshToken(
                grant: token.grant, issuedAt: Date(timeIntervalSince1970: token.createdAt),
                expiresAt: Date(timeIntervalSince1970: token.expiresAt)
            )
        }
    }

    public func revokeRefreshToken(hash: String, proof: DPoPRules.AcceptedProof?, now: Date) async throws -> RefreshRevocation {
        try await write { db in
            try Self.takeProof(proof, db)
            guard let token = try Self.fetchRefreshToken(db, hash: hash) else { return .unknown }
            let revocation = RefreshRules.revocation(token, provenThumbprint: proof?.thumbprint)
            try Self.apply(revocation.plan, db, environmentID: token.grant.environmentID, now: now)
            return revocation.outcome
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

    public func recordDPoPProof(replayKey: String, expiresAt: Date) async throws -> Bool {
        try await write { db in try Self.recordProof(replayKey: replayKey, expiresAt: expiresAt, db) }
    }

    /// Records the use of `proof`, if there is one, in the caller's transaction; one used
    /// before is refused, which rolls the transaction back.
    static func takeProof(_ proof: DPoPRules.AcceptedProof?, _ db: Database) throws {
        guard let proof else { return }
        guard try recordProof(replayKey: proof.replayKey, expiresAt: proof.rememberUntil, db) else {
            throw DPoPRefusal.usedBefore
        }
    }

    private static func recordProof(replayKey: String, expiresAt: Date, _ db: Database) throws -> Bool {
        try Row.fetchOne(db.cachedStatement(sql: DPoPTables.recordProof.sqlite), arguments: [replayKey, expiresAt.timeIntervalSince1970])
            != nil
    }

    public func standing(jti: String, userID: String?, deviceID: String?, environmentID: String) async throws -> TokenStanding {
        try await read { db in
            let revoked =
                try Bool.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = ?)
                                OR EXISTS (SELECT 1 FROM devices WHERE id = ? AND revoked_at IS NOT NULL)
                            """),
                    arguments: [jti, deviceID]
                ) ?? false
            let user = try userID.flatMap { try Self.fetchUser(db, id: $0, environmentID: environmentID) }
            return TokenStanding(user: user, revoked: revoked)
        }
    }

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

    /// Runs one step of ``TokenPurge``.
    static func purge(_ step: TokenPurgeStep, _ db: Database) throws {
        switch step {
        case .forgetRevocations(let expiredBy):
            try db.execute(cached: "DELETE FROM revoked_tokens WHERE expires_at <= ?", arguments: [expiredBy])
        case .deleteExpiredRefreshTokens(let expiredBy):
            try db.execute(cached: "DELETE FROM refresh_tokens WHERE expires_at <= ?", arguments: [expiredBy])
        case .deleteTwiceRotated(let rotatedBefore):
            try db.execute(
                cached: """
                    DELETE FROM refresh_tokens WHERE rotated_at < ?
                      AND successor_hash IN (SELECT token_hash FROM refresh_tokens WHERE rotated_at IS NOT NULL)
                    """,
                arguments: [rotatedBefore]
            )
        case .clearSealedSuccessors(let rotatedBefore):
            try db.execute(
                cached: "UPDATE refresh_tokens SET successor_sealed = NULL WHERE successor_sealed IS NOT NULL AND rotated_at < ?",
                arguments: [rotatedBefore]
            )
        case .forgetDPoPProofs(let expiredBy):
            try db.execute(cached: DPoPTables.forgetProofs.sqlite, arguments: [expiredBy])
        }
    }

    private static func fetchRefreshToken(_ db: Database, hash: String) throws -> RefreshRules.Token? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT r.*, u.environment_id, u.disabled_at, d.revoked_at AS device_revoked_at,
                           d.last_seen_at AS device_last_seen_at, \(ShiftTables.refreshColumns)
                    FROM refresh_tokens r JOIN users u ON u.id = r.user_id JOIN devices d ON d.id = r.device_id
                    LEFT JOIN shifts s ON s.id = r.device_id
                    WHERE r.token_hash = ?
                    """),
            arguments: [hash]
        ).map { row in
            RefreshRules.Token(
                grant: RefreshGrant(
                    userID: row["user_id"], deviceID: row["device_id"], environmentID: row["environment_id"],
                    dpopThumbprint: row["dpop_jkt"], shift: shift(of: row)),
                createdAt: row["created_at"], expiresAt: row["expires_at"], maxExpiresAt: row["max_expires_at"],
                revokedAt: row["revoked_at"], rotatedAt: row["rotated_at"], successorHash: row["successor_hash"],
                successorSealed: (row["successor_sealed"] as Data?).map { Array($0) }, userDisabledAt: row["disabled_at"],
                deviceRevokedAt: row["device_revoked_at"], deviceLastSeenAt: row["device_last_seen_at"]
            )
        }
    }

    /// The shift a refresh token's row joined, if its device is a shift's.
    private static func shift(of row: Row) -> ShiftRecord? {
        guard let deviceID: String = row["shift_device_id"] else { return nil }
        return ShiftRecord(
            id: row["device_id"], sharedDeviceID: deviceID, userID: row["user_id"], email: row["shift_email"],
            startedAt: Date(timeIntervalSince1970: row["shift_started_at"]),
            endedAt: (row["shift_ended_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            endReason: (row["shift_end_reason"] as String?).flatMap(ShiftEndReason.init(rawValue:)),
            amr: ShiftTables.amr(row["shift_amr"]))
    }
}
