public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func completeLogin(_ login: CompletedLogin, now: Date) async throws -> [StoredEvent] {
        let announced = realmPrefixes.outward(login.session.realmPath, environmentID: login.session.environmentID)
        return try await writeEvents { db in
            let session = login.session
            let timestamp = now.timeIntervalSince1970
            let initialized =
                try Bool.fetchOne(
                    db.cachedStatement(sql: "SELECT initialized FROM realms WHERE path = ?"), arguments: [session.realmPath]
                ) ?? false
            let plan = SessionRules.signingIn(login, announcedRealm: announced, realmInitialized: initialized, now: timestamp)
            let signedIn = try Self.apply(plan.move, db)
            // The sweeper may have expired the session while the IdP was answering.
            guard !signedIn.moved.isEmpty else { return [] }
            for entry in try Self.markSignedIn(db, session: session, now: timestamp) {
                try Self.audit(db, environmentID: session.environmentID, entry, now: now)
            }
            // Every earlier token of the device, rotated ones too: a grace retry of the last
            // sign-in's must not outlive this one.
            try db.execute(
                cached: "UPDATE refresh_tokens SET revoked_at = ? WHERE device_id = ? AND revoked_at IS NULL",
                arguments: [timestamp, plan.refreshToken.deviceID]
            )
            try Self.issueRefreshToken(db, plan.refreshToken, now: timestamp)
            if let shift = login.shift { try Self.startShift(shift, environmentID: session.environmentID, db, now: now) }
            return signedIn.events
        }
    }

    /// Marks the session's device seen and signed in; returns the audit entries of the sign-in.
    private static func markSignedIn(_ db: Database, session: OnboardingSession, now: Double) throws -> [AuditRecord] {
        let deviceID = session.deviceID
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT name, platform, signed_in_at FROM devices WHERE id = ?"), arguments: [deviceID])
        else { throw StoreInconsistency("the session's device \(deviceID) is gone") }
        try db.execute(
            cached: "UPDATE devices SET last_seen_at = ?, signed_in_at = COALESCE(signed_in_at, ?) WHERE id = ?",
            arguments: [now, now, deviceID]
        )
        return DeviceActivityAudit.signIn(
            userID: session.userID, deviceID: deviceID, name: row["name"], platform: row["platform"],
            signedInBefore: row["signed_in_at"] != nil
        )
    }

    public func failLogin(sessionID: String, error: String, description: String, audited: Bool, now: Date) async throws -> [StoredEvent] {
        let failure = LoginFailure(error: error, description: description, audited: audited)
        return try await writeEvents { db in try Self.fail(sessionID: sessionID, failure, now: now, db: db) }
    }

    static func fail(sessionID: String, _ failure: LoginFailure, now: Date, db: Database) throws -> [StoredEvent] {
        let failed = try apply(SessionRules.failing(sessionID: sessionID, failure, now: now.timeIntervalSince1970), db)
        for session in failed.moved {
            guard let entry = SessionRules.failureAudit(failure, userID: session.userID, deviceID: session.deviceID) else { continue }
            try audit(db, environmentID: session.environmentID, entry, now: now)
        }
        return failed.events
    }

    public func events(sessionID: String, after: Int) async throws -> [StoredEvent] {
        try await read { db in
            try Self.fetchEvents(db, sql: "WHERE session_id = ? AND seq > ? ORDER BY seq", arguments: [sessionID, after])
        }
    }

    public func events(afterRowID id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await read { db in
            try Self.fetchEvents(db, sql: "WHERE id > ? ORDER BY id LIMIT ?", arguments: [id, limit])
        }
    }

    public func latestEventRowID() async throws -> Int64 {
        try await read { db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(MAX(id), 0) FROM session_events")) ?? 0 }
    }

    public func acknowledgeEvents(sessionID: String, after: Int, now: Date) async throws -> Bool {
        try await write { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT status, last_seq FROM sessions WHERE id = ? AND ended_at IS NULL"),
                    arguments: [sessionID]
                ),
                let status = OnboardingSession.Status(rawValue: row["status"]),
                let end = SessionRules.acknowledgement(
                    sessionID: sessionID, after: after, lastSeq: row["last_seq"], status: status, now: now.timeIntervalSince1970)
            else { return false }
            try db.execute(
                cached: "DELETE FROM session_events WHERE session_id = ? AND type = ?", arguments: [end.sessionID, end.droppedEventType]
            )
            try db.execute(cached: "UPDATE sessions SET ended_at = ? WHERE id = ?", arguments: [end.at, end.sessionID])
            return true
        }
    }

    public func removeUnconfirmedUsers(registeredBefore: Date) async throws -> Int {
        try await write { db in
            let cutoff = registeredBefore.timeIntervalSince1970
            let candidates = try Row.fetchAll(
                db.cachedStatement(sql: UnconfirmedCandidates.query(cutoff: "?")), arguments: [cutoff]
            ).map { row in
                UnconfirmedUserRules.Candidate(
                    id: row["id"], role: row["role"], disabled: row["disabled"], lastRegisteredAt: row["last_registered_at"],
                    hasRunningSession: row["running"], inTeam: row["in_team"], hasGrant: row["has_grant"]
                )
            }
            let removal = UnconfirmedUserRules.removal(candidates, cutoff: cutoff)
            for (id, realm) in zip(removal.userIDs, removal.personalRealms) {
                try db.execute(cached: "DELETE FROM users WHERE id = ?", arguments: [id])
                try db.execute(cached: "DELETE FROM realm_grants WHERE realm_path = ?", arguments: [realm])
                try Self.forgetHistory(of: id, db)
            }
            return removal.userIDs.count
        }
    }

    public func markRealmInitialized(path: String, environmentID: String?, now: Date) async throws -> RealmInitialization? {
        defer {
            sessionEvents.signal()
            realmFeed.signal()
        }
        return try await write { [realmPrefixes] db in
            let timestamp = now.timeIntervalSince1970
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT user_id, environment_id, initialized FROM realms WHERE path = ?"), arguments: [path]
                )
            else { return nil }
            let realm = RealmFacts(userID: row["user_id"], environmentID: row["environment_id"], initialized: row["initialized"])
            let announced = realmPrefixes.outward(path, environmentID: realm.environmentID)
            guard
                let plan = SessionRules.realmInitialization(realm, askedIn: environmentID, announcedRealm: announced, now: timestamp)
            else { return nil }
            if plan.marksRealm {
                // A change the integration feed shows again, now as initialized.
                try db.execute(
                    cached: "UPDATE realms SET initialized = 1, initialized_at = ?, feed_seq = ? WHERE path = ?",
                    arguments: [timestamp, try Self.nextFeedSeq(db), path]
                )
            }
            return RealmInitialization(wasInitialized: !plan.marksRealm, events: try Self.apply(plan.move, db).events)
        }
    }

    /// Runs `body` in a write transaction and wakes the event readers if it stored events.
    private func writeEvents(_ body: @escaping @Sendable (Database) throws -> [StoredEvent]) async throws -> [StoredEvent] {
        let events = try await write(body)
        if !events.isEmpty { sessionEvents.signal() }
        return events
    }

    /// Appends an event with the session's next sequence number.
    static func append(_ event: SessionEvent, to sessionID: String, db: Database, now: Double) throws -> StoredEvent {
        guard
            let seq = try Int.fetchOne(
                db.cachedStatement(sql: "UPDATE sessions SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq"),
                arguments: [sessionID]
            )
        else {
            throw DatabaseError(message: "no session for event")
        }
        // The `frame` column keeps the event's stored form; the socket builds the frame when it sends.
        try db.execute(
            cached: "INSERT INTO session_events (session_id, seq, type, frame, terminal, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [sessionID, seq, event.type, try event.storedForm(), event.isTerminal, now]
        )
        return StoredEvent(rowID: db.lastInsertedRowID, sessionID: sessionID, seq: seq, event: event, storedAt: now)
    }

    private static func fetchEvents(_ db: Database, sql: String, arguments: StatementArguments) throws -> [StoredEvent] {
        try Row.fetchAll(
            db.cachedStatement(sql: "SELECT id, session_id, seq, frame, created_at FROM session_events " + sql), arguments: arguments
        )
        .map { row in
            StoredEvent(
                rowID: row["id"], sessionID: row["session_id"], seq: row["seq"], event: try SessionEvent(storedForm: row["frame"]),
                storedAt: row["created_at"]
            )
        }
    }
}
