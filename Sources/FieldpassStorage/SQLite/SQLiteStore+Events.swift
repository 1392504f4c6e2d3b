public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore {
    public func completeLogin(_ login: CompletedLogin, now: Date) async throws -> [StoredEvent] {
        let announced = realmPrefixes.outward(login.session.realmPath, environmentID: login.session.environmentID)
        return try await writeEvents { db in
            let session = login.session
            let timestamp = now.timeIntervalSince1970
            try db.execute(
                cached: "UPDATE sessions SET status = 'authenticated' WHERE id = ? AND status = 'exchanging' AND expires_at > ?",
                arguments: [session.id, timestamp]
            )
            // The sweeper may have expired the session while the IdP was answering.
            guard db.changesCount == 1 else { return [] }
            try db.execute(cached: "UPDATE devices SET last_seen_at = ? WHERE id = ?", arguments: [timestamp, session.deviceID])
            try Self.insertRefreshToken(
                db, hash: login.refreshTokenHash, userID: session.userID, deviceID: session.deviceID, now: timestamp,
                expiresAt: login.refreshTokenExpiresAt.timeIntervalSince1970,
                maxExpiresAt: login.refreshTokenMaxExpiresAt.timeIntervalSince1970
            )
            var events = [
                try Self.append(.token(accessToken: login.accessToken, refreshToken: login.refreshToken, expiresIn: login.accessTokenTTL), to: session.id, db: db, now: timestamp),
                try Self.append(.realmInitialized(realmPath: announced), to: session.id, db: db, now: timestamp),
            ]
            let initialized = try Bool.fetchOne(db.cachedStatement(sql: "SELECT initialized FROM realms WHERE path = ?"), arguments: [session.realmPath]) ?? false
            if initialized {
                try db.execute(cached: "UPDATE sessions SET status = 'completed' WHERE id = ?", arguments: [session.id])
                events.append(try Self.append(.dataReady(realmPath: announced), to: session.id, db: db, now: timestamp))
            }
            return events
        }
    }

    public func failLogin(sessionID: String, error: String, description: String, audited: Bool, now: Date) async throws -> [StoredEvent] {
        try await writeEvents { db in
            guard let session = try Row.fetchOne(
                db.cachedStatement(sql: """
                    UPDATE sessions SET status = 'failed' WHERE id = ? AND status IN ('pending', 'exchanging')
                    RETURNING environment_id, user_id, device_id
                    """),
                arguments: [sessionID]
            ) else { return [] }
            if audited {
                try Self.audit(
                    db, environmentID: session["environment_id"], actor: "browser", action: "login.\(error)",
                    target: "user:\(session["user_id"] as String)", before: nil, after: ["device_id": session["device_id"]], now: now
                )
            }
            return [try Self.append(.loginFailed(error: error, description: description), to: sessionID, db: db, now: now.timeIntervalSince1970)]
        }
    }

    public func events(sessionID: String, after: Int) async throws -> [StoredEvent] {
        try await pool.read { db in
            try Self.fetchEvents(db, sql: "WHERE session_id = ? AND seq > ? ORDER BY seq", arguments: [sessionID, after])
        }
    }

    public func events(afterRowID id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await pool.read { db in
            try Self.fetchEvents(db, sql: "WHERE id > ? ORDER BY id LIMIT ?", arguments: [id, limit])
        }
    }

    public func latestEventRowID() async throws -> Int64 {
        try await pool.read { db in try Int64.fetchOne(db.cachedStatement(sql: "SELECT COALESCE(MAX(id), 0) FROM session_events")) ?? 0 }
    }

    public func endSession(id: String, now: Date) async throws {
        try await write { db in
            try db.execute(cached: "DELETE FROM session_events WHERE session_id = ? AND type = 'token'", arguments: [id])
            try db.execute(
                cached: "UPDATE sessions SET ended_at = ? WHERE id = ? AND ended_at IS NULL",
                arguments: [now.timeIntervalSince1970, id]
            )
        }
    }

    public func removeUnconfirmedUsers(registeredBefore: Date) async throws -> Int {
        try await write { db in
            let removed = try String.fetchAll(
                db.cachedStatement(sql: "DELETE FROM users WHERE \(UnconfirmedUsers.condition(cutoff: "?1")) RETURNING id"),
                arguments: [registeredBefore.timeIntervalSince1970]
            )
            for id in removed {
                try db.execute(cached: "DELETE FROM realm_grants WHERE realm_path = ?", arguments: [RealmPath.personal(userID: id)])
            }
            return removed.count
        }
    }

    public func sweepSessions(now: Date, deleteBefore: Date) async throws -> [StoredEvent] {
        try await writeEvents { db in
            let timestamp = now.timeIntervalSince1970
            let expiring = try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM sessions WHERE expires_at <= ? AND status IN ('pending', 'exchanging', 'authenticated')"),
                arguments: [timestamp]
            )
            var events: [StoredEvent] = []
            for id in expiring {
                try db.execute(cached: "UPDATE sessions SET status = 'expired' WHERE id = ?", arguments: [id])
                events.append(try Self.append(.sessionExpired, to: id, db: db, now: timestamp))
            }
            // A session past its expiry has ended, whether or not its device heard the end.
            try db.execute(
                cached: """
                    DELETE FROM session_events WHERE type = 'token'
                    AND session_id IN (SELECT id FROM sessions WHERE expires_at <= ? AND ended_at IS NULL)
                    """,
                arguments: [timestamp]
            )
            try db.execute(
                cached: "UPDATE sessions SET ended_at = ? WHERE expires_at <= ? AND ended_at IS NULL",
                arguments: [timestamp, timestamp]
            )
            try db.execute(cached: "DELETE FROM sessions WHERE expires_at < ?", arguments: [deleteBefore.timeIntervalSince1970])
            try Self.purgeSpentTokens(db, now: timestamp)
            return events
        }
    }

    public func markRealmInitialized(path: String, environmentID: String?, now: Date) async throws -> [StoredEvent]? {
        defer {
            sessionEvents.signal()
            realmFeed.signal()
        }
        return try await write { [realmPrefixes] db in
            let timestamp = now.timeIntervalSince1970
            guard let realm = try Row.fetchOne(
                db.cachedStatement(sql: "SELECT user_id, environment_id, initialized FROM realms WHERE path = ?"), arguments: [path]
            ), environmentID == nil || realm["environment_id"] == environmentID else {
                return nil
            }
            let userID: String = realm["user_id"]
            if !(realm["initialized"] as Bool) {
                // A change the integration feed shows again, now as initialized.
                try db.execute(
                    cached: "UPDATE realms SET initialized = 1, initialized_at = ?, feed_seq = ? WHERE path = ?",
                    arguments: [timestamp, try Self.nextFeedSeq(db), path]
                )
            }
            let waiting = try String.fetchAll(
                db.cachedStatement(sql: "SELECT id FROM sessions WHERE user_id = ? AND status = 'authenticated' AND expires_at > ?"),
                arguments: [userID, timestamp]
            )
            let announced = realmPrefixes.outward(path, environmentID: realm["environment_id"])
            var events: [StoredEvent] = []
            for id in waiting {
                try db.execute(cached: "UPDATE sessions SET status = 'completed' WHERE id = ?", arguments: [id])
                events.append(try Self.append(.dataReady(realmPath: announced), to: id, db: db, now: timestamp))
            }
            return events
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
        guard let seq = try Int.fetchOne(
            db.cachedStatement(sql: "UPDATE sessions SET last_seq = last_seq + 1 WHERE id = ? RETURNING last_seq"), arguments: [sessionID]
        ) else {
            throw DatabaseError(message: "no session for event")
        }
        let frame = try event.frame(seq: seq)
        try db.execute(
            cached: "INSERT INTO session_events (session_id, seq, type, frame, terminal, created_at) VALUES (?, ?, ?, ?, ?, ?)",
            arguments: [sessionID, seq, event.type, frame, event.isTerminal, now]
        )
        return StoredEvent(rowID: db.lastInsertedRowID, sessionID: sessionID, seq: seq, frame: frame, isTerminal: event.isTerminal, storedAt: now)
    }

    private static func fetchEvents(_ db: Database, sql: String, arguments: StatementArguments) throws -> [StoredEvent] {
        try Row.fetchAll(db.cachedStatement(sql: "SELECT id, session_id, seq, frame, terminal, created_at FROM session_events " + sql), arguments: arguments)
            .map { row in
                StoredEvent(
                    rowID: row["id"], sessionID: row["session_id"], seq: row["seq"], frame: row["frame"], isTerminal: row["terminal"],
                    storedAt: row["created_at"]
                )
            }
    }
}
