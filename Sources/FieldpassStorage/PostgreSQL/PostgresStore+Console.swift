public import FieldpassDomain
public import Foundation
import PostgresNIO

extension PostgresStore: ConsoleStore {
    public func beginConsoleSignIn(_ signIn: ConsoleSignIn) async throws {
        try await read { connection in
            try await connection.execute(
                PostgresQuery(
                    ConsoleStatements.beginSignIn, signIn.stateHash, signIn.environmentID, signIn.email, signIn.nonce, signIn.codeVerifier,
                    signIn.browserBinding, signIn.expiresAt.timeIntervalSince1970))
        }
    }

    public func takeConsoleSignIn(stateHash: String, now: Date) async throws -> ConsoleSignIn? {
        try await read { connection in
            try await connection.first(PostgresQuery(ConsoleStatements.takeSignIn, stateHash, now.timeIntervalSince1970)).map { row in
                try ConsoleSignIn(
                    stateHash: row.get("state_hash"), environmentID: row.get("environment_id"), email: row.get("email"),
                    nonce: row.get("nonce"), codeVerifier: row.get("code_verifier"), browserBinding: row.get("browser_binding"),
                    expiresAt: Date(timeIntervalSince1970: row.get("expires_at"))
                )
            }
        }
    }

    public func createConsoleSession(_ session: ConsoleSession) async throws {
        try await read { connection in
            try await connection.execute(
                PostgresQuery(
                    ConsoleStatements.createSession, session.idHash, session.userID, session.environmentID,
                    session.createdAt.timeIntervalSince1970, session.expiresAt.timeIntervalSince1970,
                    session.idleExpiresAt.timeIntervalSince1970))
        }
    }

    /// One statement whether the session lives (its idle end moves) or not (it is deleted).
    public func consoleSession(
        idHash: String, now: Date, idleTimeout: TimeInterval
    ) async throws -> (session: ConsoleSession, user: UserRecord)? {
        let timestamp = now.timeIntervalSince1970
        return try await read { connection in
            guard
                let row = try await connection.first(
                    """
                    WITH live AS (
                        UPDATE console_sessions c SET idle_expires_at = LEAST(c.expires_at, \(timestamp + idleTimeout))
                        FROM users u
                        WHERE c.id_hash = \(idHash) AND c.idle_expires_at > \(timestamp) AND c.expires_at > \(timestamp)
                          AND u.id = c.user_id AND u.environment_id = c.environment_id AND u.disabled_at IS NULL
                        RETURNING c.*
                    ), dead AS (
                        DELETE FROM console_sessions WHERE id_hash = \(idHash) AND NOT EXISTS (SELECT 1 FROM live)
                    )
                    SELECT live.id_hash, live.user_id, live.environment_id AS session_environment_id, live.created_at AS session_created_at,
                           live.expires_at, live.idle_expires_at,
                           u.id, u.environment_id, u.email, u.role, u.created_at, u.idp_issuer, u.idp_subject, u.disabled_at
                    FROM live JOIN users u ON u.id = live.user_id
                    """
                )
            else { return nil }
            let session = try ConsoleSession(
                idHash: row.get("id_hash"), userID: row.get("user_id"), environmentID: row.get("session_environment_id"),
                createdAt: Date(timeIntervalSince1970: row.get("session_created_at")),
                expiresAt: Date(timeIntervalSince1970: row.get("expires_at")),
                idleExpiresAt: Date(timeIntervalSince1970: row.get("idle_expires_at"))
            )
            return (session, try Self.userRecord(row))
        }
    }

    public func endConsoleSession(idHash: String) async throws {
        try await read { connection in
            try await connection.execute(PostgresQuery(ConsoleStatements.endSession, idHash))
        }
    }

    public func sweepConsole(now: Date) async throws {
        let timestamp = now.timeIntervalSince1970
        try await read { connection in
            try await connection.execute(PostgresQuery(ConsoleStatements.purgeSignIns, timestamp))
            try await connection.execute(PostgresQuery(ConsoleStatements.purgeSessions, timestamp))
            try await connection.execute(PostgresQuery(ConsoleStatements.purgeOutcomes, timestamp - ConsoleTables.outcomeRetention))
        }
    }

    public func person(email: String, environmentID: String) async throws -> UserRecord? {
        try await read { connection in
            try await connection.first(PostgresQuery(UserStatements.userByEmail, environmentID, DirectoryRules.emailKey(email))).map(
                Self.userRecord)
        }
    }

    public func people(_ query: PeopleQuery, environmentID: String) async throws -> [PersonSummary] {
        var bindings = PostgresBindings()
        bindings.append(environmentID)
        let conditions = ConsoleTables.peopleConditions(query) { value in
            bindings.append(value)
            return "$\(bindings.count)"
        }
        bindings.append(query.limit)
        bindings.append(query.offset)
        // The page first, then each of its people's last sighting: PostgreSQL would otherwise
        // work out the sighting of every person it sorts, not just of the page's.
        let sql = """
            SELECT p.*, (SELECT MAX(d.last_seen_at) FROM devices d WHERE d.user_id = p.id) AS last_seen_at
            FROM (
                SELECT u.id, u.environment_id, u.email, u.role, u.created_at, u.idp_issuer, u.idp_subject, u.disabled_at,
                       u.signed_in_at, s.display_name AS scim_display_name
                FROM users u LEFT JOIN scim_users s ON s.user_id = u.id
                WHERE u.environment_id = $1\(conditions.sql)
                ORDER BY u.email COLLATE "C" LIMIT $\(bindings.count - 1) OFFSET $\(bindings.count)
            ) p
            ORDER BY p.email COLLATE "C"
            """
        let bound = bindings
        return try await read { connection in
            try await connection.rows(PostgresQuery(unsafeSQL: sql, binds: bound)).map(Self.personSummary)
        }
    }

    public func teamSummaries(environmentID: String, viewer: String) async throws -> [TeamSummary] {
        try await read { connection in
            try await connection.rows(PostgresQuery(TeamStatements.summaries, viewer, environmentID)).map { row in
                TeamSummary(
                    id: try row.get("id"), name: try row.get("name"), memberCount: Int(try row.get("member_count", as: Int64.self)),
                    includesViewer: try row.get("includes_viewer")
                )
            }
        }
    }

    public func auditLog(environmentID: String, filter: AuditFilter, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        var bindings = PostgresBindings()
        bindings.append(environmentID)
        bindings.append(before ?? Int64.max)
        let conditions = ConsoleTables.auditConditions(filter) { value in
            bindings.append(value)
            return "$\(bindings.count)"
        }
        bindings.append(limit)
        let sql = ConsoleStatements.auditPage(environment: "$1", before: "$2", conditions: conditions.sql, limit: "$\(bindings.count)")
        let bound = bindings
        return try await read { connection in
            try await connection.rows(PostgresQuery(unsafeSQL: sql, binds: bound)).map(Self.auditEntry)
        }
    }

    public func onboardingSummary(environmentID: String, since: Date, waitingLimit: Int) async throws -> OnboardingSummary {
        try await read { connection in
            var tally = OnboardingTally()
            for row in try await connection.rows(
                PostgresQuery(ConsoleStatements.outcomeCounts, environmentID, since.timeIntervalSince1970)
            ) {
                tally.add(outcome: try row.get("outcome"), reason: try row.get("reason"), count: Int(try row.get("n", as: Int64.self)))
            }
            let waiting = try await connection.rows(
                """
                SELECT u.id, u.environment_id, u.email, u.role, u.created_at, u.idp_issuer, u.idp_subject, u.disabled_at, u.signed_in_at,
                       NULL::text AS scim_display_name, NULL::double precision AS last_seen_at
                FROM users u JOIN realms r ON r.user_id = u.id
                WHERE u.environment_id = \(environmentID) AND u.signed_in_at IS NOT NULL AND u.disabled_at IS NULL AND NOT r.initialized
                  AND \(unescaped: OnboardingWaiting.hasSignedInDevice)
                ORDER BY u.signed_in_at LIMIT \(waitingLimit)
                """
            ).map(Self.personSummary)
            return tally.summary(waitingForData: waiting)
        }
    }

    private static func personSummary(_ row: PostgresRandomAccessRow) throws -> PersonSummary {
        try PersonSummary(
            user: userRecord(row), displayName: row.get("scim_display_name"),
            signedInAt: row.get("signed_in_at", as: Double?.self).map(Date.init(timeIntervalSince1970:)),
            lastSeenAt: row.get("last_seen_at", as: Double?.self).map(Date.init(timeIntervalSince1970:))
        )
    }
}
