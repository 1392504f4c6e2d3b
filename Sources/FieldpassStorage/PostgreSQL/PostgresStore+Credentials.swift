public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    public func recordSignIn(_ attempt: SignInAttempt, now: Date) async throws -> SignInOutcome {
        let (outcome, announced) = try await write { connection -> (SignInOutcome, Bool) in
            // Locks the user: of two first sign-ins at once, one binds the identity (and promotes a
            // bootstrap admin) and the other sees that binding.
            guard
                let row = try await connection.first(
                    """
                    SELECT environment_id, role, idp_issuer, idp_subject, disabled_at, signed_in_at
                    FROM users WHERE id = \(attempt.userID) FOR UPDATE
                    """
                )
            else { throw DirectoryError.unknownUser }
            let environmentID: String = try row.get("environment_id")
            let user = SignInRules.User(
                id: attempt.userID, role: try row.get("role"), issuer: try row.get("idp_issuer"), subject: try row.get("idp_subject"),
                disabled: try row.get("disabled_at", as: Double?.self) != nil,
                signedInBefore: try row.get("signed_in_at", as: Double?.self) != nil
            )
            var holder: String?
            if SignInRules.needsHolderLookup(user: user, attempt: attempt) {
                // The account's lock makes two first sign-ins of it for two users take turns, so
                // the second sees the first one's binding.
                try await connection.execute(
                    "SELECT pg_advisory_xact_lock(hashtextextended(\(environmentID + "\n" + attempt.issuer + "\n" + attempt.subject), 0))"
                )
                holder = try await connection.value(
                    """
                    SELECT id FROM users WHERE environment_id = \(environmentID) AND idp_subject = \(attempt.subject)
                      AND (idp_issuer = \(attempt.issuer) OR idp_issuer IS NULL) AND id <> \(attempt.userID)
                    """,
                    as: String.self
                )
            }
            var teams: SignInRules.Teams?
            if let names = SignInRules.teamNamesToResolve(user: user, attempt: attempt) {
                teams = try await Self.signInTeams(connection, userID: attempt.userID, environmentID: environmentID, names: names)
            }
            let decision = SignInRules.decide(user: user, holder: holder, attempt: attempt, teams: teams)
            for entry in decision.audit { try await Self.audit(connection, environmentID: environmentID, entry, now: now) }
            if let refusal = decision.refusal { return (refusal, false) }
            try await connection.execute(
                """
                UPDATE users SET idp_issuer = \(attempt.issuer), idp_subject = \(attempt.subject),
                                 signed_in_at = \(now.timeIntervalSince1970)
                WHERE id = \(attempt.userID)
                """
            )
            if let role = decision.role {
                try await connection.execute("UPDATE users SET role = \(role.rawValue) WHERE id = \(attempt.userID)")
            }
            try await Self.applyTeams(
                of: decision, connection, userID: attempt.userID, environmentID: environmentID, now: now.timeIntervalSince1970
            )
            let changed = user.issuer != attempt.issuer || user.subject != attempt.subject || decision.changesAccess
            if changed { try await Self.announce(.user(id: attempt.userID), on: connection) }
            guard let facts = try await Self.fetchFacts(connection, userID: attempt.userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return (.signedIn(facts), changed)
        }
        // This instance forgets what it remembered of the person before answering.
        if announced { await revocationsCaughtUp() }
        return outcome
    }

    public func resetIdentity(userID: String, environmentID: String, actor: String, now: Date) async throws {
        try await write { connection in
            guard let user = try await Self.fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true) else {
                throw DirectoryError.unknownUser
            }
            guard DirectoryRules.resetsIdentity(user), let subject = user.idpSubject else { return }
            try await connection.execute("UPDATE users SET idp_issuer = NULL, idp_subject = NULL WHERE id = \(userID)")
            try await Self.announce(.user(id: userID), on: connection)
            let revoked = try await Self.revokeLiveDevices(connection, userID: userID, now: now.timeIntervalSince1970)
            let expiry = SessionRules.expiry
            let unfinished = try await connection.values(
                "UPDATE sessions SET status = \(expiry.to.rawValue) WHERE user_id = \(userID) AND status = ANY(\(expiry.fromValues)) RETURNING id",
                as: String.self
            )
            _ = try await Self.append(unfinished.sorted().map { (.sessionExpired, $0) }, on: connection, now: now.timeIntervalSince1970)
            try await Self.audit(
                connection, environmentID: environmentID,
                .identityReset(actor: actor, userID: userID, issuer: user.idpIssuer, subject: subject, revoked: revoked), now: now
            )
        }
        publish(.sessionEvents)
        await revocationsCaughtUp()
    }

    public func setDisabled(_ disabled: Bool, userID: String, environmentID: String, actor: String, now: Date) async throws -> UserRecord {
        let user = try await write { connection in
            try await Self.setDisabled(connection, disabled, userID: userID, environmentID: environmentID, actor: actor, now: now)
        }
        await revocationsCaughtUp()
        return user
    }

    static func setDisabled(
        _ connection: PostgresConnection, _ disabled: Bool, userID: String, environmentID: String, actor: String, now: Date
    ) async throws -> UserRecord {
        guard var user = try await fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true) else {
            throw DirectoryError.unknownUser
        }
        guard var entry = DirectoryRules.setDisabled(disabled, user: user, actor: actor) else { return user }
        let timestamp = now.timeIntervalSince1970
        let disabledAt: Double? = disabled ? timestamp : nil
        try await connection.execute("UPDATE users SET disabled_at = \(disabledAt) WHERE id = \(userID)")
        try await announce(.user(id: userID), on: connection)
        if DirectoryRules.revokesDevices(disabling: disabled) {
            entry.revokedDevices = try await revokeLiveDevices(connection, userID: userID, now: timestamp)
            try await connection.execute("DELETE FROM console_sessions WHERE user_id = \(userID)")
        }
        try await audit(connection, environmentID: environmentID, entry, now: now)
        user.disabled = disabled
        return user
    }

    public func devices(userID: String, environmentID: String) async throws -> [DeviceRecord] {
        try await read { connection in
            guard try await Self.fetchUser(connection, id: userID, environmentID: environmentID) != nil else {
                throw DirectoryError.unknownUser
            }
            return try await connection.rows(
                "SELECT * FROM devices WHERE user_id = \(userID) ORDER BY created_at DESC, id"
            ).map { row in
                DeviceRecord(
                    id: try row.get("id"), userID: try row.get("user_id"), name: try row.get("name"),
                    platform: try row.get("platform"),
                    createdAt: Date(timeIntervalSince1970: try row.get("created_at")),
                    lastSeenAt: Date(timeIntervalSince1970: try row.get("last_seen_at")),
                    revokedAt: try row.get("revoked_at", as: Double?.self).map(Date.init(timeIntervalSince1970:))
                )
            }
        }
    }

    public func revokeDevice(id: String, userID: String, environmentID: String, actor: String, now: Date) async throws {
        try await write { connection in
            // The user lock makes the "not revoked yet" check and its audit entry happen once.
            guard try await Self.fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true) != nil else {
                throw DirectoryError.unknownUser
            }
            guard
                let device = try await connection.first(
                    "SELECT name, revoked_at FROM devices WHERE id = \(id) AND user_id = \(userID)"
                )
            else { throw DirectoryError.unknownDevice }
            guard try device.get("revoked_at", as: Double?.self) == nil else { return }
            let name: String = try device.get("name")
            try await Self.revokeDevice(connection, id: id, now: now.timeIntervalSince1970)
            try await Self.audit(
                connection, environmentID: environmentID, .deviceRevoked(actor: actor, userID: userID, deviceID: id, name: name), now: now
            )
        }
        await revocationsCaughtUp()
    }

    /// Revokes every device of the user not revoked yet; returns their ids. Callers hold the
    /// user's lock, so no device of theirs can be added or revoked meanwhile.
    static func revokeLiveDevices(_ connection: PostgresConnection, userID: String, now: Double) async throws -> [String] {
        let deviceIDs = try await connection.values(
            "SELECT id FROM devices WHERE user_id = \(userID) AND revoked_at IS NULL", as: String.self
        )
        for deviceID in deviceIDs {
            try await revokeDevice(connection, id: deviceID, now: now)
        }
        return deviceIDs
    }

    /// Marks a device revoked and its refresh tokens with it; their sealed successors go too.
    /// Callers hold the lock of the device's user.
    static func revokeDevice(_ connection: PostgresConnection, id: String, now: Double) async throws {
        try await connection.execute("UPDATE devices SET revoked_at = \(now) WHERE id = \(id) AND revoked_at IS NULL")
        try await announce(.device(id: id), on: connection)
        try await connection.execute(
            """
            UPDATE refresh_tokens SET revoked_at = COALESCE(revoked_at, \(now)), successor_sealed = NULL
            WHERE device_id = \(id)
            """
        )
    }
}
