public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    public func rotateRefreshToken(_ rotation: RefreshRotation, now: Date) async throws -> RefreshOutcome {
        let (outcome, endedShift) = try await writeGrouped { connection -> (RefreshOutcome, Bool) in
            let timestamp = now.timeIntervalSince1970
            try await Self.takeProof(rotation.proof, connection)
            // Concurrent refreshes of one token, on any instance, queue on its lock; each then reads
            // what the one before committed, so exactly one rotates and the others retry or count
            // as a reuse.
            guard let token = try await Self.lockRefreshToken(connection, hash: rotation.oldHash) else { return (.refused, false) }
            var successor: RefreshRules.Token?
            if RefreshRules.needsSuccessorLookup(token, grace: rotation.grace, now: timestamp), let hash = token.successorHash {
                successor = try await Self.fetchRefreshToken(connection, hash: hash)
            }
            let decision = RefreshRules.decide(token, successor: successor, rotation: rotation, now: timestamp)
            try await Self.apply(decision.plan, connection, environmentID: token.grant.environmentID, now: now)
            return (decision.outcome, decision.plan.writes.contains { if case .endShift = $0 { true } else { false } })
        }
        // A shift past its limit ended: its access tokens count as revoked here once this is answered.
        if endedShift { await revocationsCaughtUp() }
        return outcome
    }

    public func liveRefreshToken(hash: String, now: Date) async throws -> LiveRefreshToken? {
        try await read { connection in
            guard let token = try await Self.fetchRefreshToken(connection, hash: hash), token.isLive(now: now.timeIntervalSince1970)
            else { return nil }
            return LiveRefreshToken(
                grant: token.grant, issuedAt: Date(timeIntervalSince1970: token.createdAt),
                expiresAt: Date(timeIntervalSince1970: token.expiresAt)
            )
        }
    }

    public func revokeRefreshToken(hash: String, proof: DPoPRules.AcceptedProof?, now: Date) async throws -> RefreshRevocation {
        let outcome = try await write { connection in
            try await Self.takeProof(proof, connection)
            // Locked like a rotation: two revocations at once revoke and audit once.
            guard let token = try await Self.lockRefreshToken(connection, hash: hash)
            else { return RefreshRevocation.unknown }
            let revocation = RefreshRules.revocation(token, provenThumbprint: proof?.thumbprint)
            try await Self.apply(revocation.plan, connection, environmentID: token.grant.environmentID, now: now)
            return revocation.outcome
        }
        await revocationsCaughtUp()
        return outcome
    }

    public func revokeAccessToken(jti: String, expiresAt: Date) async throws {
        try await write { connection in
            try await connection.execute(
                """
                INSERT INTO revoked_tokens (jti, expires_at) VALUES (\(jti), \(expiresAt.timeIntervalSince1970))
                ON CONFLICT (jti) DO NOTHING
                """
            )
            try await Self.announce(.token(jti: jti, expiresAt: expiresAt.timeIntervalSince1970), on: connection)
        }
        await revocationsCaughtUp()
    }

    public func recordDPoPProof(replayKey: String, expiresAt: Date) async throws -> Bool {
        try await write { connection in try await Self.recordProof(replayKey: replayKey, expiresAt: expiresAt, connection) }
    }

    /// Records the use of `proof`, if there is one, in the caller's transaction; one used
    /// before is refused, which rolls the transaction back.
    static func takeProof(_ proof: DPoPRules.AcceptedProof?, _ connection: PostgresConnection) async throws {
        guard let proof else { return }
        guard try await recordProof(replayKey: proof.replayKey, expiresAt: proof.rememberUntil, connection) else {
            throw DPoPRefusal.usedBefore
        }
    }

    /// The primary key decides between instances: of two uses at once, one inserts; the other
    /// waits for the first to commit, then finds its row.
    private static func recordProof(replayKey: String, expiresAt: Date, _ connection: PostgresConnection) async throws -> Bool {
        try await connection.first(PostgresQuery(DPoPTables.recordProof, replayKey, expiresAt.timeIntervalSince1970)) != nil
    }

    public func standing(jti: String, userID: String?, deviceID: String?, environmentID: String) async throws -> TokenStanding {
        try await read { connection in
            let revoked =
                try await connection.value(
                    """
                    SELECT EXISTS (SELECT 1 FROM revoked_tokens WHERE jti = \(jti))
                        OR EXISTS (SELECT 1 FROM devices WHERE id = \(deviceID) AND revoked_at IS NOT NULL)
                    """,
                    as: Bool.self
                ) ?? false
            var user: UserRecord?
            if let userID {
                user = try await Self.fetchUser(connection, id: userID, environmentID: environmentID)
            }
            return TokenStanding(user: user, revoked: revoked)
        }
    }

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

    /// Runs one step of ``TokenPurge``. The refresh token steps skip tokens another transaction
    /// has locked (a rotation, a revocation): they are done at the next sweep, and waiting for
    /// them could deadlock against a device revocation that locks the same tokens in another order.
    static func purge(_ step: TokenPurgeStep, _ connection: PostgresConnection) async throws {
        switch step {
        case .forgetRevocations(let expiredBy):
            try await connection.execute("DELETE FROM revoked_tokens WHERE expires_at <= \(expiredBy)")
        case .deleteExpiredRefreshTokens(let expiredBy):
            try await connection.execute(
                """
                DELETE FROM refresh_tokens
                WHERE token_hash IN (SELECT token_hash FROM refresh_tokens WHERE expires_at <= \(expiredBy) FOR UPDATE SKIP LOCKED)
                """
            )
        case .deleteTwiceRotated(let rotatedBefore):
            try await connection.execute(
                """
                DELETE FROM refresh_tokens
                WHERE token_hash IN (
                    SELECT old.token_hash FROM refresh_tokens old JOIN refresh_tokens next ON next.token_hash = old.successor_hash
                    WHERE old.rotated_at < \(rotatedBefore) AND next.rotated_at IS NOT NULL
                    FOR UPDATE OF old SKIP LOCKED
                )
                """
            )
        case .clearSealedSuccessors(let rotatedBefore):
            try await connection.execute(
                """
                UPDATE refresh_tokens SET successor_sealed = NULL
                WHERE token_hash IN (
                    SELECT token_hash FROM refresh_tokens
                    WHERE successor_sealed IS NOT NULL AND rotated_at < \(rotatedBefore)
                    FOR UPDATE SKIP LOCKED
                )
                """
            )
        case .forgetDPoPProofs(let expiredBy):
            try await connection.execute(PostgresQuery(DPoPTables.forgetProofs, expiredBy))
        }
    }

    /// Locks the token's user, then reads and locks the token. The user first, as every change
    /// to a person's things does, so a rotation never deadlocks with a revocation of the same
    /// device. Returns `nil` for an unknown token.
    private static func lockRefreshToken(_ connection: PostgresConnection, hash: String) async throws -> RefreshRules.Token? {
        // A token's user never changes, so finding it before the lock is safe.
        guard
            try await connection.value(
                "SELECT id FROM users WHERE id = (SELECT user_id FROM refresh_tokens WHERE token_hash = \(hash)) FOR UPDATE",
                as: String.self
            ) != nil
        else { return nil }
        return try await fetchRefreshToken(connection, hash: hash, forUpdate: true)
    }

    /// The token with its user's and device's standing; with `forUpdate`, the token's row
    /// stays locked until the transaction ends.
    private static func fetchRefreshToken(
        _ connection: PostgresConnection, hash: String, forUpdate: Bool = false
    ) async throws -> RefreshRules.Token? {
        try await connection.first(
            """
            SELECT r.user_id, r.device_id, r.created_at, r.expires_at, r.max_expires_at, r.revoked_at, r.rotated_at,
                   r.successor_hash, r.successor_sealed, u.environment_id, u.disabled_at, d.revoked_at AS device_revoked_at,
                   d.last_seen_at AS device_last_seen_at, r.dpop_jkt, \(unescaped: ShiftTables.refreshColumns)
            FROM refresh_tokens r JOIN users u ON u.id = r.user_id JOIN devices d ON d.id = r.device_id
            LEFT JOIN shifts s ON s.id = r.device_id
            WHERE r.token_hash = \(hash)\(unescaped: forUpdate ? " FOR UPDATE OF r" : "")
            """
        ).map { row in
            RefreshRules.Token(
                grant: RefreshGrant(
                    userID: try row.get("user_id"), deviceID: try row.get("device_id"), environmentID: try row.get("environment_id"),
                    dpopThumbprint: try row.get("dpop_jkt"), shift: try shift(of: row)
                ),
                createdAt: try row.get("created_at"), expiresAt: try row.get("expires_at"), maxExpiresAt: try row.get("max_expires_at"),
                revokedAt: try row.get("revoked_at"), rotatedAt: try row.get("rotated_at"), successorHash: try row.get("successor_hash"),
                successorSealed: try row.get("successor_sealed", as: Data?.self).map { [UInt8]($0) },
                userDisabledAt: try row.get("disabled_at"), deviceRevokedAt: try row.get("device_revoked_at"),
                deviceLastSeenAt: try row.get("device_last_seen_at")
            )
        }
    }

    /// The shift a refresh token's row joined, if its device is a shift's.
    private static func shift(of row: PostgresRandomAccessRow) throws -> ShiftRecord? {
        guard let deviceID = try row.get("shift_device_id", as: String?.self) else { return nil }
        return ShiftRecord(
            id: try row.get("device_id"), sharedDeviceID: deviceID, userID: try row.get("user_id"), email: try row.get("shift_email"),
            startedAt: Date(timeIntervalSince1970: try row.get("shift_started_at")),
            endedAt: try row.get("shift_ended_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            endReason: try row.get("shift_end_reason", as: String?.self).flatMap(ShiftEndReason.init(rawValue:)),
            amr: ShiftTables.amr(try row.get("shift_amr", as: String?.self)))
    }
}
