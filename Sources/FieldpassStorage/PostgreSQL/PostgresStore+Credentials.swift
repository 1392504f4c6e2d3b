public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore {
    public func recordSignIn(_ attempt: SignInAttempt, now: Date) async throws -> SignInOutcome {
        let (outcome, announced) = try await write { connection -> (SignInOutcome, Bool) in
            // Locks the user: of two first sign-ins at once, one binds the identity (and promotes a
            // bootstrap admin) and the other sees that binding.
            var locked = PostgresQuery(UserStatements.signingIn, attempt.userID)
            locked.sql += " FOR UPDATE"
            guard let row = try await connection.first(locked) else { throw DirectoryError.unknownUser }
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
                    PostgresQuery(UserStatements.identityHolder, environmentID, attempt.subject, attempt.issuer, attempt.userID),
                    as: String.self)
            }
            var teams: SignInRules.Teams?
            if let names = SignInRules.teamNamesToResolve(user: user, attempt: attempt) {
                teams = try await Self.signInTeams(connection, userID: attempt.userID, environmentID: environmentID, names: names)
            }
            let decision = SignInRules.decide(user: user, holder: holder, attempt: attempt, teams: teams)
            for entry in decision.audit { try await Self.audit(connection, environmentID: environmentID, entry, now: now) }
            if let refusal = decision.refusal { return (refusal, false) }
            try await connection.execute(
                PostgresQuery(UserStatements.signedIn, attempt.issuer, attempt.subject, now.timeIntervalSince1970, attempt.userID))
            if let role = decision.role {
                try await connection.execute(PostgresQuery(UserStatements.setRole, role.rawValue, attempt.userID))
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

    public func resetIdentity(userID: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            let user = try await Self.fetchUser(connection, id: userID, environmentID: caller.environmentID, forUpdate: true)
            let plan = try DirectoryRules.resetIdentity(
                of: user, liveDevices: try await Self.liveDeviceIDs(connection, userID: userID), actor: caller.actor)
            try await Self.apply(plan, connection, environmentID: caller.environmentID, now: now)
        }
        publish(.sessionEvents)
        await revocationsCaughtUp()
    }

    public func setDisabled(_ disabled: Bool, userID: String, by caller: DirectoryCaller, now: Date) async throws -> UserRecord {
        let user = try await write { connection in
            let caller = try await Self.authorize(connection, caller)
            return try await Self.setDisabled(
                connection, disabled, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: now
            ) { target in try DirectoryAuthority.checkDisable(disabled, of: target, by: caller) }
        }
        await revocationsCaughtUp()
        return user
    }

    static func setDisabled(
        _ connection: PostgresConnection, _ disabled: Bool, userID: String, environmentID: String, actor: String, now: Date,
        check: (UserRecord) throws -> Void = { _ in }
    ) async throws -> UserRecord {
        let user = try await fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true)
        if let user { try check(user) }
        let provisioned = try await isProvisioned(connection, userID: userID, environmentID: environmentID)
        let plan = try DirectoryRules.setDisabled(
            disabled, of: user, provisionedByScim: provisioned, liveDevices: try await liveDeviceIDs(connection, userID: userID),
            actor: actor)
        try await apply(plan, connection, environmentID: environmentID, now: now)
        guard var user else { throw DirectoryError.unknownUser }
        user.disabled = disabled
        return user
    }

    public func devices(userID: String, environmentID: String) async throws -> [DeviceRecord] {
        try await read { connection in
            guard try await Self.fetchUser(connection, id: userID, environmentID: environmentID) != nil else {
                throw DirectoryError.unknownUser
            }
            return try await connection.rows(PostgresQuery(DeviceStatements.devices, userID)).map { row in
                DeviceRecord(
                    id: try row.get("id"), userID: try row.get("user_id"), name: try row.get("name"),
                    platform: try row.get("platform"),
                    createdAt: Date(timeIntervalSince1970: try row.get("created_at")),
                    lastSeenAt: Date(timeIntervalSince1970: try row.get("last_seen_at")),
                    signedInAt: try row.get("signed_in_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
                    revokedAt: try row.get("revoked_at", as: Double?.self).map(Date.init(timeIntervalSince1970:))
                )
            }
        }
    }

    public func revokeDevice(id: String, userID: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { connection in
            // Anyone may sign out their own devices.
            let byThemselves = caller.person?.id == userID
            let caller = byThemselves ? caller : try await Self.authorize(connection, caller)
            let (environmentID, actor) = (caller.environmentID, caller.actor)
            // The user lock makes the "not revoked yet" check and its audit entry happen once.
            let user = try await Self.fetchUser(connection, id: userID, environmentID: environmentID, forUpdate: true)
            let device = try await connection.first(PostgresQuery(DeviceStatements.device, id, userID)).map {
                (name: try $0.get("name", as: String.self), revoked: try $0.get("revoked_at", as: Double?.self) != nil)
            }
            let plan = try DirectoryRules.revokeDevice(
                id: id, device, userKnown: user != nil, userID: userID, byThemselves: byThemselves, actor: actor)
            try await Self.apply(plan, connection, environmentID: environmentID, now: now)
        }
        await revocationsCaughtUp()
    }

    /// Marks a device revoked and its refresh tokens with it; their sealed successors go too.
    /// Callers hold the lock of the device's user.
    static func revokeDevice(_ connection: PostgresConnection, id: String, now: Double) async throws {
        try await connection.execute(PostgresQuery(DeviceStatements.revoke, now, id))
        try await announce(.device(id: id), on: connection)
        try await connection.execute(PostgresQuery(DeviceStatements.revokeRefreshTokens, now, id))
    }
}
