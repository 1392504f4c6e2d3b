public import FieldpassDomain
public import Foundation
import PostgresNIO

/// Session events and the cross-instance event feed.
///
/// Feed order: an event's row id is its position in the feed, given after its transaction
/// committed (see ``PostgresFeed``), so ids become visible in order, with no holes, and a
/// reader that remembers the highest id it has seen never skips an event that commits late.
/// The events a write returns, and those a session's own read finds not placed yet, carry
/// row id 0.
extension PostgresStore {
    public func completeLogin(_ login: CompletedLogin, now: Date) async throws -> [StoredEvent] {
        let announced = realmPrefixes.outward(login.session.realmPath, environmentID: login.session.environmentID)
        let events = try await writeEvents { connection in
            let session = login.session
            let timestamp = now.timeIntervalSince1970
            // The person first, as every change to a person's devices and tokens does.
            try await connection.execute("SELECT 1 FROM users WHERE id = \(session.userID) FOR UPDATE")
            // Shares the realm's lock with `markRealmInitialized`, which takes it exclusively:
            // whichever commits second sees the other's change, so `data_ready` is never lost.
            let initialized =
                try await connection.value(
                    "SELECT initialized FROM realms WHERE path = \(session.realmPath) FOR SHARE", as: Bool.self
                ) ?? false
            let plan = SessionRules.signingIn(login, announcedRealm: announced, realmInitialized: initialized, now: timestamp)
            let signedIn = try await Self.apply(plan.move, connection, superseding: plan.refreshToken)
            // The sweeper may have expired the session while the IdP was answering.
            guard !signedIn.moved.isEmpty else { return [] }
            for entry in try await Self.markSignedIn(connection, session: session, now: timestamp) {
                try await Self.audit(connection, environmentID: session.environmentID, entry, now: now)
            }
            try await Self.issueRefreshToken(connection, plan.refreshToken, now: timestamp)
            if let shift = login.shift {
                try await Self.startShift(shift, environmentID: session.environmentID, connection, now: now)
            }
            return signedIn.events
        }
        // The shift before on the device ended: its access tokens count as revoked here once this is answered.
        if login.shift != nil { await revocationsCaughtUp() }
        return events
    }

    /// Marks the session's device signed in; returns the audit entries of the sign-in (the
    /// person's lock, taken first, keeps two sign-ins of one device from both finding it new).
    private static func markSignedIn(
        _ connection: PostgresConnection, session: OnboardingSession, now: Double
    ) async throws -> [AuditRecord] {
        let deviceID = session.deviceID
        guard
            let row = try await connection.first(
                """
                WITH found AS (SELECT name, platform, signed_in_at FROM devices WHERE id = \(deviceID)),
                marked AS (UPDATE devices SET signed_in_at = \(now) WHERE id = \(deviceID) AND signed_in_at IS NULL)
                SELECT name, platform, signed_in_at IS NOT NULL AS signed_in_before FROM found
                """
            )
        else { throw StoreInconsistency("the session's device \(deviceID) is gone") }
        return DeviceActivityAudit.signIn(
            userID: session.userID, deviceID: deviceID, name: try row.get("name"), platform: try row.get("platform"),
            signedInBefore: try row.get("signed_in_before")
        )
    }

    /// One statement (ends the session and stores its event), committed on its own unless an
    /// audit entry joins it: the callback's last step costs one round trip.
    public func failLogin(sessionID: String, error: String, description: String, audited: Bool, now: Date) async throws -> [StoredEvent] {
        let failure = LoginFailure(error: error, description: description, audited: audited)
        let fail: @Sendable (PostgresConnection) async throws -> [StoredEvent] = { connection in
            try await Self.fail(sessionID: sessionID, failure, now: now, on: connection)
        }
        let events = audited ? try await write(fail) : try await read(fail)
        if !events.isEmpty { publish(.sessionEvents) }
        return events
    }

    static func fail(sessionID: String, _ failure: LoginFailure, now: Date, on connection: PostgresConnection) async throws -> [StoredEvent]
    {
        let failed = try await applyInOneStatement(
            SessionRules.failing(sessionID: sessionID, failure, now: now.timeIntervalSince1970), connection)
        for session in failed.moved {
            guard let entry = SessionRules.failureAudit(failure, userID: session.userID, deviceID: session.deviceID) else { continue }
            try await audit(connection, environmentID: session.environmentID, entry, now: now)
        }
        return failed.events
    }

    public func events(sessionID: String, after: Int) async throws -> [StoredEvent] {
        try await read { connection in
            try await Self.storedEvents(
                connection.rows(
                    """
                    SELECT coalesce(id, 0) AS id, session_id, seq, frame, created_at FROM session_events
                    WHERE session_id = \(sessionID) AND seq > \(after) ORDER BY seq
                    """
                )
            )
        }
    }

    public func events(afterRowID id: Int64, limit: Int) async throws -> [StoredEvent] {
        // The hubs read this feed; every commit's publishing wakes them again. What committed
        // is placed first without waiting for older transactions, in the same round trip.
        try await read { connection in
            try await Self.storedEvents(
                connection.rows(
                    "SELECT id, session_id, seq, frame, created_at FROM fieldpass_session_events_after(\(id), \(Int64(limit)))"
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

    public func acknowledgeEvents(sessionID: String, after: Int, now: Date) async throws -> Bool {
        try await write { connection in
            guard
                let row = try await connection.first(
                    "SELECT status, last_seq FROM sessions WHERE id = \(sessionID) AND ended_at IS NULL FOR UPDATE"
                ),
                let status = OnboardingSession.Status(rawValue: try row.get("status")),
                let end = SessionRules.acknowledgement(
                    sessionID: sessionID, after: after, lastSeq: try row.get("last_seq"), status: status, now: now.timeIntervalSince1970)
            else { return false }
            try await connection.execute(
                """
                WITH purged AS (DELETE FROM session_events WHERE session_id = \(end.sessionID) AND type = \(end.droppedEventType))
                UPDATE sessions SET ended_at = \(end.at) WHERE id = \(end.sessionID)
                """
            )
            return true
        }
    }

    public func removeUnconfirmedUsers(registeredBefore: Date) async throws -> Int {
        try await write { connection in
            let cutoff = registeredBefore.timeIntervalSince1970
            var binds = PostgresBindings()
            binds.append(cutoff)
            // Locked, so a registration of one of them waits, and finds them gone or kept.
            let candidates = try await connection.rows(
                PostgresQuery(unsafeSQL: UnconfirmedCandidates.query(cutoff: "$1") + " FOR UPDATE OF u", binds: binds)
            ).map { row in
                UnconfirmedUserRules.Candidate(
                    id: try row.get("id"), role: try row.get("role"), disabled: try row.get("disabled"),
                    lastRegisteredAt: try row.get("last_registered_at"), hasRunningSession: try row.get("running"),
                    inTeam: try row.get("in_team"), hasGrant: try row.get("has_grant")
                )
            }
            let removal = UnconfirmedUserRules.removal(candidates, cutoff: cutoff)
            try await connection.execute("DELETE FROM users WHERE id = ANY(\(removal.userIDs))")
            try await connection.execute("DELETE FROM realm_grants WHERE realm_path = ANY(\(removal.personalRealms))")
            try await Self.forgetHistory(of: removal.userIDs, connection)
            return removal.userIDs.count
        }
    }

    public func markRealmInitialized(path: String, environmentID: String?, now: Date) async throws -> RealmInitialization? {
        let marked = try await write { [realmPrefixes] connection -> RealmInitialization? in
            let timestamp = now.timeIntervalSince1970
            guard
                let realm = try await connection.first(
                    "SELECT user_id, environment_id, initialized FROM realms WHERE path = \(path) FOR UPDATE"
                )
            else { return nil }
            let facts = RealmFacts(
                userID: try realm.get("user_id"), environmentID: try realm.get("environment_id"), initialized: try realm.get("initialized")
            )
            let announced = realmPrefixes.outward(path, environmentID: facts.environmentID)
            guard
                let plan = SessionRules.realmInitialization(facts, askedIn: environmentID, announcedRealm: announced, now: timestamp)
            else { return nil }
            let events = try await Self.apply(plan.move, connection).events
            if plan.marksRealm {
                // A change the integration feed shows again, now as initialized: unplaced, it
                // takes a new position after commit.
                try await connection.execute(
                    """
                    UPDATE realms SET initialized = true, initialized_at = \(timestamp), feed_seq = NULL,
                        (writer_xid, written) = (\(unescaped: PostgresFeed.unplacedMark))
                    WHERE path = \(path)
                    """
                )
            }
            return RealmInitialization(wasInitialized: !plan.marksRealm, events: events)
        }
        if marked != nil {
            publish(.realms)
            publish(.sessionEvents)
        }
        return marked
    }

    /// Appends events, each with its session's next `seq`, unplaced in the feed (see the
    /// type's comment): publish them after commit.
    static func append(
        _ events: [(event: SessionEvent, sessionID: String)], on connection: PostgresConnection, now: Double
    ) async throws -> [StoredEvent] {
        guard !events.isEmpty else { return [] }
        var numbered: [(event: SessionEvent, sessionID: String, seq: Int, storedForm: String)] = []
        for (event, sessionID) in events {
            guard
                let seq = try await connection.value(
                    "UPDATE sessions SET last_seq = last_seq + 1 WHERE id = \(sessionID) RETURNING last_seq", as: Int.self
                )
            else { throw StoreInconsistency("no session for event") }
            numbered.append((event, sessionID, seq, try event.storedForm()))
        }
        var stored: [StoredEvent] = []
        for item in numbered {
            try await connection.execute(
                """
                INSERT INTO session_events (session_id, seq, type, frame, terminal, created_at, writer_xid, written)
                VALUES (\(item.sessionID), \(item.seq), \(item.event.type), \(item.storedForm), \(item.event.isTerminal), \(now),
                        \(unescaped: PostgresFeed.unplacedMark))
                """
            )
            stored.append(
                StoredEvent(
                    rowID: 0, sessionID: item.sessionID, seq: item.seq, event: item.event, storedAt: now
                ))
        }
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
