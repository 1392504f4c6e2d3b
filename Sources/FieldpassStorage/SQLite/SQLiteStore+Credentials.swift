public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func recordSignIn(_ attempt: SignInAttempt, now: Date) async throws -> SignInOutcome {
        try await write { db in
            guard
                let row = try Row.fetchOne(db.cachedStatement(sql: UserStatements.signingIn.sqlite), arguments: [attempt.userID])
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
                    db.cachedStatement(sql: UserStatements.identityHolder.sqlite),
                    arguments: [environmentID, attempt.subject, attempt.issuer, attempt.userID]
                ) : nil
            let teams = try SignInRules.teamNamesToResolve(user: user, attempt: attempt).map { names in
                try Self.signInTeams(db, userID: attempt.userID, environmentID: environmentID, names: names)
            }
            let decision = SignInRules.decide(user: user, holder: holder, attempt: attempt, teams: teams)
            for entry in decision.audit { try Self.audit(db, environmentID: environmentID, entry, now: now) }
            if let refusal = decision.refusal { return refusal }
            try db.execute(
                cached: UserStatements.signedIn.sqlite,
                arguments: [attempt.issuer, attempt.subject, now.timeIntervalSince1970, attempt.userID]
            )
            if let role = decision.role {
                try db.execute(cached: UserStatements.setRole.sqlite, arguments: [role.rawValue, attempt.userID])
            }
            try Self.applyTeams(of: decision, db, userID: attempt.userID, environmentID: environmentID, now: now.timeIntervalSince1970)
            guard let facts = try Self.fetchFacts(db, userID: attempt.userID, environmentID: environmentID) else {
                throw DirectoryError.unknownUser
            }
            return .signedIn(facts)
        }
    }

    public func resetIdentity(userID: String, by caller: DirectoryCaller, now: Date) async throws {
        let endedSignIns = try await write { db in
            let caller = try Self.authorize(db, caller)
            let plan = try DirectoryRules.resetIdentity(
                of: try Self.fetchUser(db, id: userID, environmentID: caller.environmentID),
                liveDevices: try Self.liveDeviceIDs(db, userID: userID),
                actor: caller.actor
            )
            return try Self.apply(plan, db, environmentID: caller.environmentID, now: now)
        }
        if endedSignIns { sessionEvents.signal() }
    }

    public func setDisabled(_ disabled: Bool, userID: String, by caller: DirectoryCaller, now: Date) async throws -> UserRecord {
        try await write { db in
            let caller = try Self.authorize(db, caller)
            if let target = try Self.fetchUser(db, id: userID, environmentID: caller.environmentID) {
                try DirectoryAuthority.checkDisable(disabled, of: target, by: caller)
            }
            return try Self.setDisabled(db, disabled, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: now)
        }
    }

    static func setDisabled(
        _ db: Database, _ disabled: Bool, userID: String, environmentID: String, actor: String, now: Date
    ) throws -> UserRecord {
        let plan = try DirectoryRules.setDisabled(
            disabled, of: try fetchUser(db, id: userID, environmentID: environmentID),
            provisionedByScim: try isProvisioned(db, userID: userID, environmentID: environmentID),
            liveDevices: try liveDeviceIDs(db, userID: userID), actor: actor
        )
        try apply(plan, db, environmentID: environmentID, now: now)
        guard let user = try fetchUser(db, id: userID, environmentID: environmentID) else { throw DirectoryError.unknownUser }
        return user
    }

    public func devices(userID: String, environmentID: String) async throws -> [DeviceRecord] {
        try await read { db in
            guard try Self.fetchUser(db, id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
            return try Row.fetchAll(db.cachedStatement(sql: DeviceStatements.devices.sqlite), arguments: [userID]).map { row in
                DeviceRecord(
                    id: row["id"], userID: row["user_id"], name: row["name"], platform: row["platform"],
                    createdAt: Date(timeIntervalSince1970: row["created_at"]),
                    lastSeenAt: Date(timeIntervalSince1970: row["last_seen_at"]),
                    signedInAt: (row["signed_in_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
                    revokedAt: (row["revoked_at"] as Double?).map(Date.init(timeIntervalSince1970:))
                )
            }
        }
    }

    public func revokeDevice(id: String, userID: String, by caller: DirectoryCaller, now: Date) async throws {
        try await write { db in
            // Anyone may sign out their own devices.
            let byThemselves = caller.person?.id == userID
            let caller = byThemselves ? caller : try Self.authorize(db, caller)
            let (environmentID, actor) = (caller.environmentID, caller.actor)
            let device = try Row.fetchOne(db.cachedStatement(sql: DeviceStatements.device.sqlite), arguments: [id, userID]).map {
                (name: $0["name"] as String, revoked: $0["revoked_at"] as Double? != nil)
            }
            let plan = try DirectoryRules.revokeDevice(
                id: id, device, userKnown: try Self.fetchUser(db, id: userID, environmentID: environmentID) != nil, userID: userID,
                byThemselves: byThemselves, actor: actor
            )
            try Self.apply(plan, db, environmentID: environmentID, now: now)
        }
    }

    /// Marks a device revoked and its refresh tokens with it; their sealed successors go too.
    static func revokeDevice(_ db: Database, id: String, now: Double) throws {
        try db.execute(cached: DeviceStatements.revoke.sqlite, arguments: [now, id])
        try db.execute(cached: DeviceStatements.revokeRefreshTokens.sqlite, arguments: [now, id])
    }
}
