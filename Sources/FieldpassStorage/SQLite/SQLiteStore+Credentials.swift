public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func recordSignIn(_ attempt: SignInAttempt, now: Date) async throws -> SignInOutcome {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: "SELECT environment_id, role, idp_issuer, idp_subject, disabled_at, signed_in_at FROM users WHERE id = ?"),
                    arguments: [attempt.userID]
                )
            else { throw DirectoryError.unknownUser }
            let environmentID: String = row["environment_id"]
            let user = SignInRules.User(
                id: attempt.userID, role: row["role"], issuer: row["idp_issuer"], subject: row["idp_subject"],
                disabled: row["disabled_at"] as Double? != nil, signedInBefore: row["signed_in_at"] as Double? != nil
            )
            // The single writer makes the holder check and the binding one step.
            let holder =
                SignInRules.needsHolderLookup(user: user, attempt: attempt)
                ? try String.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT id FROM users WHERE environment_id = ? AND idp_subject = ?
                              AND (idp_issuer = ? OR idp_issuer IS NULL) AND id <> ?
                            """),
                    arguments: [environmentID, attempt.subject, attempt.issuer, attempt.userID]
                ) : nil
            let teams = try SignInRules.teamNamesToResolve(user: user, attempt: attempt).map { names in
                try Self.signInTeams(db, userID: attempt.userID, environmentID: environmentID, names: names)
            }
            let decision = SignInRules.decide(user: user, holder: holder, attempt: attempt, teams: teams)
            for entry in decision.audit { try Self.audit(db, environmentID: environmentID, entry, now: now) }
            if let refusal = decision.refusal { return refusal }
            try db.execute(
                cached: "UPDATE users SET idp_issuer = ?, idp_subject = ?, signed_in_at = ? WHERE id = ?",
                arguments: [attempt.issuer, attempt.subject, now.timeIntervalSince1970, attempt.userID]
            )
            if let role = decision.role {
                try db.execute(cached: "UPDATE users SET role = ? WHERE id = ?", arguments: [role.rawValue, attempt.userID])
            }
            try Self.applyTeams(of: decision, db, userID: attempt.userID, environmentID: environmentID, now: now.timeIntervalSince1970)
            guard let facts = try Self.fetchFacts(db, userID: attempt.userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return .signedIn(facts)
        }
    }

    public func resetIdentity(userID: String, environmentID: String, actor: String, now: Date) async throws {
        let ended = try await write { db -> Int in
            guard let user = try Self.fetchUser(db, id: userID, environmentID: environmentID) else { throw DirectoryError.unknownUser }
            guard DirectoryRules.resetsIdentity(user), let subject = user.idpSubject else { return 0 }
            let timestamp = now.timeIntervalSince1970
            try db.execute(cached: "UPDATE users SET idp_issuer = NULL, idp_subject = NULL WHERE id = ?", arguments: [userID])
            let revoked = try Self.revokeLiveDevices(db, userID: userID, now: timestamp)
            let expiry = SessionRules.expiry
            let unfinished = try String.fetchAll(
                db.cachedStatement(sql: "UPDATE sessions SET status = ? WHERE user_id = ? AND \(expiry.fromCondition) RETURNING id"),
                arguments: [expiry.to.rawValue, userID] + expiry.fromArguments
            )
            for id in unfinished.sorted() { _ = try Self.append(.sessionExpired, to: id, db: db, now: timestamp) }
            try Self.audit(
                db, environmentID: environmentID,
                .identityReset(actor: actor, userID: userID, issuer: user.idpIssuer, subject: subject, revoked: revoked), now: now
            )
            return unfinished.count
        }
        if ended > 0 { sessionEvents.signal() }
    }

    public func setDisabled(_ disabled: Bool, userID: String, environmentID: String, actor: String, now: Date) async throws -> UserRecord {
        try await write { db in
            try Self.setDisabled(db, disabled, userID: userID, environmentID: environmentID, actor: actor, now: now)
        }
    }

    static func setDisabled(
        _ db: Database, _ disabled: Bool, userID: String, environmentID: String, actor: String, now: Date
    ) throws -> UserRecord {
        guard var user = try fetchUser(db, id: userID, environmentID: environmentID) else { throw DirectoryError.unknownUser }
        guard var entry = DirectoryRules.setDisabled(disabled, user: user, actor: actor) else { return user }
        let timestamp = now.timeIntervalSince1970
        try db.execute(cached: "UPDATE users SET disabled_at = ? WHERE id = ?", arguments: [disabled ? timestamp : nil, userID])
        if DirectoryRules.revokesDevices(disabling: disabled) {
            entry.revokedDevices = try revokeLiveDevices(db, userID: userID, now: timestamp)
            try db.execute(cached: "DELETE FROM console_sessions WHERE user_id = ?", arguments: [userID])
        }
        try audit(db, environmentID: environmentID, entry, now: now)
        user.disabled = disabled
        return user
    }

    public func devices(userID: String, environmentID: String) async throws -> [DeviceRecord] {
        try await read { db in
            guard try Self.fetchUser(db, id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
            return try Row.fetchAll(
                db.cachedStatement(sql: "SELECT * FROM devices WHERE user_id = ? ORDER BY created_at DESC, id"), arguments: [userID]
            ).map { row in
                DeviceRecord(
                    id: row["id"], userID: row["user_id"], name: row["name"], platform: row["platform"],
                    createdAt: Date(timeIntervalSince1970: row["created_at"]),
                    lastSeenAt: Date(timeIntervalSince1970: row["last_seen_at"]),
                    revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:))
                )
            }
        }
    }

    public func revokeDevice(id: String, userID: String, environmentID: String, actor: String, now: Date) async throws {
        try await write { db in
            guard try Self.fetchUser(db, id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
            guard
                let device = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT name, revoked_at FROM devices WHERE id = ? AND user_id = ?"), arguments: [id, userID]
                )
            else { throw DirectoryError.unknownDevice }
            guard device["revoked_at"] as Double? == nil else { return }
            try Self.revokeDevice(db, id: id, now: now.timeIntervalSince1970)
            try Self.audit(
                db, environmentID: environmentID, .deviceRevoked(actor: actor, userID: userID, deviceID: id, name: device["name"]), now: now
            )
        }
    }

    /// Revokes every device of the user not revoked yet; returns their ids.
    static func revokeLiveDevices(_ db: Database, userID: String, now: Double) throws -> [String] {
        let deviceIDs = try String.fetchAll(
            db.cachedStatement(sql: "SELECT id FROM devices WHERE user_id = ? AND revoked_at IS NULL"), arguments: [userID]
        )
        for deviceID in deviceIDs {
            try revokeDevice(db, id: deviceID, now: now)
        }
        return deviceIDs
    }

    /// Marks a device revoked and its refresh tokens with it; their sealed successors go too.
    static func revokeDevice(_ db: Database, id: String, now: Double) throws {
        try db.execute(cached: "UPDATE devices SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL", arguments: [now, id])
        try db.execute(
            cached: "UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, ?), successor_sealed = NULL WHERE device_id = ?",
            arguments: [now, id]
        )
    }
}
