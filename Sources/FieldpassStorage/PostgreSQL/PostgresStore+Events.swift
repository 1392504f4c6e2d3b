public import FieldpassDomain
public import Foundation
import PostgresNIO

/// Session events and the cross-instance event feed.
///
/// Feed order: an event's row id is taken from the `counters` row 'session_events', not from
/// a sequence. Taking it locks that row until the transaction ends, so a second writer
/// waits for the first to commit or roll back before it gets the next id: ids become visible
/// in the order they were handed out, with no holes. A reader that remembers the highest
/// id it has seen therefore never skips an event that commits late, which a sequence (whose
/// values commit out of order) could not promise. The lock is taken as the last step of
/// each transaction that stores events, so it is held for little more than the commit.
extension PostgresStore {
    public func completeLogin(_ login: CompletedLogin, now: Date) async throws -> [StoredEvent] {
        let announced = realmPrefixes.outward(login.session.realmPath, environmentID: login.session.environmentID)
        return try await write { connection in
            let session = login.session
            let timestamp = now.timeIntervalSince1970
            // The person first, as every change to a person's devices and tokens does.
            try await connection.execute("SELECT 1 FROM users WHERE id = \(session.userID) FOR UPDATE")
            // Shares the realm's lock with `markRealmInitialized`, which takes it exclusively:
            // whichever commits second sees the other's change, so `data_ready` is never lost.
            let initialized = try await connection.value(
                "SELECT initialized FROM realms WHERE path = \(session.realmPath) FOR SHARE", as: Bool.self
            ) ?? false
            let updated = try await connection.rows(
                """
                UPDATE sessions SET status = \(initialized ? "completed" : "authenticated")
                WHERE id = \(session.id) AND status = 'exchanging' AND expires_at > \(timestamp) RETURNING 1
                """
            )
            // The sweeper may have expired the session while the IdP was answering.
            guard updated.count == 1 else { return [] }
            try await connection.execute("UPDATE devices SET last_seen_at = \(timestamp) WHERE id = \(session.deviceID)")
            try await Self.insertRefreshToken(
                connection, hash: login.refreshTokenHash, userID: session.userID, deviceID: session.deviceID, now: timestamp,
                expiresAt: login.refreshTokenExpiresAt.timeIntervalSince1970,
                maxExpiresAt: login.refreshTokenMaxExpiresAt.timeIntervalSince1970
            )
            var events: [SessionEvent] = [
                .token(accessToken: login.accessToken, refreshToken: login.refreshToken, expiresIn: login.accessTokenTTL),
                .realmInitialized(realmPath: announced),
            ]
            if initialized { events.append(.dataReady(realmPath: announced)) }
            return try await Self.append(events.map { ($0, session.id) }, on: connection, now: timestamp)
        }
    }

    public func failLogin(sessionID: String, error: String, description: String, audited: Bool, now: Date) async throws -> [StoredEvent] {
        try await write { connection in
            guard let session = try await connection.first(
                """
                UPDATE sessions SET status = 'failed' WHERE id = \(sessionID) AND status IN ('pending', 'exchanging')
                RETURNING environment_id, user_id, device_id
                """
            ) else { return [] }
            if audited {
                let userID: String = try session.get("user_id")
                try await Self.audit(
                    connection, environmentID: try session.get("environment_id"), actor: "browser", action: "login.\(error)",
                    target: "user:\(userID)", before: nil, after: ["device_id": try session.get("device_id")], now: now
                )
            }
            return try await Self.append(
                [(.loginFailed(error: error, description: description), sessionID)], on: connection, now: now.timeIntervalSince1970
            )
        }
    }

    public func events(sessionID: String, after: Int) async throws -> [StoredEvent] {
        try await read { connection in
            try await Self.storedEvents(
                connection.rows(
                    """
                    SELECT id, session_id, seq, frame, created_at FROM session_events
                    WHERE session_id = \(sessionID) AND seq > \(after) ORDER BY seq
                    """
                )
            )
        }
    }

    public func events(afterRowID id: Int64, limit: Int) async throws -> [StoredEvent] {
        try await read { connection in
            try await Self.storedEvents(
                connection.rows(
                    "SELECT id, session_id, seq, frame, created_at FROM session_events WHERE id > \(id) ORDER BY id LIMIT \(limit)"
                )
            )
        }
    }

    public func latestEventRowID() async throws -> Int64 {
        // The counter, not MAX(id): ended sessions' token events are deleted, ids are never reused.
        try await read { connection in
            try await connection.value("SELECT value FROM counters WHERE name = 'session_events'", as: Int64.self) ?? 0
        }
    }

    public func endSession(id: String, now: Date) async throws {
        try await write { connection in
            try await connection.execute("DELETE FROM session_events WHERE session_id = \(id) AND type = 'token'")
            try await connection.execute(
                "UPDATE sessions SET ended_at = \(now.timeIntervalSince1970) WHERE id = \(id) AND ended_at IS NULL"
            )
        }
    }

    public func removeUnconfirmedUsers(registeredBefore: Date) async throws -> Int {
        try await write { connection in
            let cutoff = registeredBefore.timeIntervalSince1970
            var binds = PostgresBindings()
            binds.append(cutoff)
            // Locked, so a registration of one of them waits, and finds them gone or kept.
            let removed = try await connection.rows(
                PostgresQuery(unsafeSQL: UnconfirmedCandidates.query(cutoff: "$1") + " FOR UPDATE OF u", binds: binds)
            ).map { row in
                UnconfirmedUserRules.Candidate(
                    id: try row.get("id"), role: try row.get("role"), disabled: try row.get("disabled"),
                    lastRegisteredAt: try row.get("last_registered_at"), hasRunningSession: try row.get("running"),
                    inTeam: try row.get("in_team"), hasGrant: try row.get("has_grant")
                )
            }.filter { UnconfirmedUserRules.isRemovable($0, cutoff: cutoff) }.map(\.id)
            try await connection.execute("DELETE FROM users WHERE id = ANY(\(removed))")
            let paths = removed.map { RealmPath.personal(userID: $0) }
            try await connection.execute("DELETE FROM realm_grants WHERE realm_path = ANY(\(paths))")
            return removed.count
        }
    }

    public func sweepSessions(now: Date, deleteBefore: Date) async throws -> [StoredEvent] {
        let events = try await write { connection in
            let timestamp = now.timeIntervalSince1970
            // Conditional, so two instances sweeping at once expire each session once.
            let expired = try await connection.values(
                """
                UPDATE sessions SET status = 'expired'
                WHERE expires_at <= \(timestamp) AND status IN ('pending', 'exchanging', 'authenticated')
                RETURNING id
                """,
                as: String.self
            )
            // A session past its expiry has ended, whether or not its device heard the end.
            try await connection.execute(
                """
                DELETE FROM session_events WHERE type = 'token'
                AND session_id IN (SELECT id FROM sessions WHERE expires_at <= \(timestamp) AND ended_at IS NULL)
                """
            )
            try await connection.execute(
                "UPDATE sessions SET ended_at = \(timestamp) WHERE expires_at <= \(timestamp) AND ended_at IS NULL"
            )
            try await connection.execute("DELETE FROM sessions WHERE expires_at < \(deleteBefore.timeIntervalSince1970)")
            try await Self.purgeSpentTokens(connection, now: timestamp)
            return try await Self.append(expired.sorted().map { (.sessionExpired, $0) }, on: connection, now: timestamp)
        }
        return events
    }

    public func markRealmInitialized(path: String, environmentID: String?, now: Date) async throws -> [StoredEvent]? {
        try await write { [realmPrefixes] connection -> [StoredEvent]? in
            let timestamp = now.timeIntervalSince1970
            guard let realm = try await connection.first(
                "SELECT user_id, environment_id, initialized FROM realms WHERE path = \(path) FOR UPDATE"
            ) else { return nil }
            let realmEnvironment: String = try realm.get("environment_id")
            guard environmentID == nil || realmEnvironment == environmentID else { return nil }
            let userID: String = try realm.get("user_id")
            let waiting = try await connection.values(
                """
                UPDATE sessions SET status = 'completed'
                WHERE user_id = \(userID) AND status = 'authenticated' AND expires_at > \(timestamp)
                RETURNING id
                """,
                as: String.self
            )
            let announced = realmPrefixes.outward(path, environmentID: realmEnvironment)
            let events = try await Self.append(waiting.sorted().map { (.dataReady(realmPath: announced), $0) }, on: connection, now: timestamp)
            if !(try realm.get("initialized", as: Bool.self)) {
                // A change the integration feed shows again, now as initialized.
                let position = try await Self.nextFeedSeq(connection)
                try await connection.execute(
                    "UPDATE realms SET initialized = true, initialized_at = \(timestamp), feed_seq = \(position) WHERE path = \(path)"
                )
            }
            return events
        }
    }

    /// Appends events, each with its session's next `seq`, then gives them their feed ids
    /// (see the type's comment) and wakes every instance's hub at commit.
    static func append(
        _ events: [(event: SessionEvent, sessionID: String)], on connection: PostgresConnection, now: Double
    ) async throws -> [StoredEvent] {
        guard !events.isEmpty else { return [] }
        var numbered: [(event: SessionEvent, sessionID: String, seq: Int, storedForm: String)] = []
        for (event, sessionID) in events {
            guard let seq = try await connection.value(
                "UPDATE sessions SET last_seq = last_seq + 1 WHERE id = \(sessionID) RETURNING last_seq", as: Int.self
            ) else { throw StoreInconsistency("no session for event") }
            numbered.append((event, sessionID, seq, try event.storedForm()))
        }
        let count = Int64(numbered.count)
        guard let last = try await connection.value(
            "UPDATE counters SET value = value + \(count) WHERE name = 'session_events' RETURNING value", as: Int64.self
        ) else { throw StoreInconsistency("session event counter missing") }
        var stored: [StoredEvent] = []
        for (offset, item) in numbered.enumerated() {
            let rowID = last - count + 1 + Int64(offset)
            try await connection.execute(
                """
                INSERT INTO session_events (id, session_id, seq, type, frame, terminal, created_at)
                VALUES (\(rowID), \(item.sessionID), \(item.seq), \(item.event.type), \(item.storedForm), \(item.event.isTerminal), \(now))
                """
            )
            stored.append(StoredEvent(
                rowID: rowID, sessionID: item.sessionID, seq: item.seq, event: item.event, storedAt: now
            ))
        }
        try await connection.execute("SELECT pg_notify(\(PostgresChangeListener.channel), 'events')")
        return stored
    }

    private static func storedEvents(_ rows: [PostgresRandomAccessRow]) throws -> [StoredEvent] {
        try rows.map { row in
            StoredEvent(
                rowID: try row.get("id"), sessionID: try row.get("session_id"), seq: try row.get("seq"),
                event: try SessionEvent(storedForm: try row.get("frame")), storedAt: try row.get("created_at")
            )
        }
    }
}
