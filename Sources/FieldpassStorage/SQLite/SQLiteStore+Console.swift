public import FieldpassDomain
public import Foundation
import GRDB

extension SQLiteStore: ConsoleStore {
    public func beginConsoleSignIn(_ signIn: ConsoleSignIn) async throws {
        try await write { db in
            try db.execute(
                cached: ConsoleStatements.beginSignIn.sqlite,
                arguments: [
                    signIn.stateHash, signIn.environmentID, signIn.email, signIn.nonce, signIn.codeVerifier, signIn.browserBinding,
                    signIn.expiresAt.timeIntervalSince1970,
                ]
            )
        }
    }

    public func takeConsoleSignIn(stateHash: String, now: Date) async throws -> ConsoleSignIn? {
        try await write { db in
            try Row.fetchOne(
                db.cachedStatement(sql: ConsoleStatements.takeSignIn.sqlite),
                arguments: [stateHash, now.timeIntervalSince1970]
            ).map { row in
                ConsoleSignIn(
                    stateHash: row["state_hash"], environmentID: row["environment_id"], email: row["email"], nonce: row["nonce"],
                    codeVerifier: row["code_verifier"], browserBinding: row["browser_binding"],
                    expiresAt: Date(timeIntervalSince1970: row["expires_at"])
                )
            }
        }
    }

    public func createConsoleSession(_ session: ConsoleSession) async throws {
        try await write { db in
            try db.execute(
                cached: ConsoleStatements.createSession.sqlite,
                arguments: [
                    session.idHash, session.userID, session.environmentID, session.createdAt.timeIntervalSince1970,
                    session.expiresAt.timeIntervalSince1970, session.idleExpiresAt.timeIntervalSince1970,
                ]
            )
        }
    }

    public func consoleSession(
        idHash: String, now: Date, idleTimeout: TimeInterval
    ) async throws -> (session: ConsoleSession, user: UserRecord)? {
        try await write { db in
            let timestamp = now.timeIntervalSince1970
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            UPDATE console_sessions SET idle_expires_at = MIN(expires_at, ?)
                            WHERE id_hash = ? AND idle_expires_at > ? AND expires_at > ?
                              AND EXISTS (SELECT 1 FROM users u WHERE u.id = user_id AND u.environment_id = console_sessions.environment_id
                                          AND u.disabled_at IS NULL)
                            RETURNING *
                            """),
                    arguments: [timestamp + idleTimeout, idHash, timestamp, timestamp]
                ), let user = try Self.fetchUser(db, id: row["user_id"], environmentID: row["environment_id"])
            else {
                try db.execute(cached: ConsoleStatements.endSession.sqlite, arguments: [idHash])
                return nil
            }
            return (Self.consoleSession(row), user)
        }
    }

    public func endConsoleSession(idHash: String) async throws {
        try await write { db in
            try db.execute(cached: ConsoleStatements.endSession.sqlite, arguments: [idHash])
        }
    }

    public func sweepConsole(now: Date) async throws {
        try await write { db in
            let timestamp = now.timeIntervalSince1970
            try db.execute(cached: ConsoleStatements.purgeSignIns.sqlite, arguments: [timestamp])
            try db.execute(cached: ConsoleStatements.purgeSessions.sqlite, arguments: [timestamp])
            try db.execute(cached: ConsoleStatements.purgeOutcomes.sqlite, arguments: [timestamp - ConsoleTables.outcomeRetention])
        }
    }

    public func person(email: String, environmentID: String) async throws -> UserRecord? {
        try await read { db in
            try Row.fetchOne(
                db.cachedStatement(sql: UserStatements.userByEmail.sqlite), arguments: [environmentID, DirectoryRules.emailKey(email)]
            ).map(Self.userRecord)
        }
    }

    public func people(_ query: PeopleQuery, environmentID: String) async throws -> [PersonSummary] {
        let conditions = ConsoleTables.peopleConditions(query) { _ in "?" }
        return try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT u.*, s.display_name AS scim_display_name,
                           (SELECT MAX(d.last_seen_at) FROM devices d WHERE d.user_id = u.id) AS last_seen_at
                    FROM users u LEFT JOIN scim_users s ON s.user_id = u.id
                    WHERE u.environment_id = ?\(conditions.sql)
                    ORDER BY u.email LIMIT ? OFFSET ?
                    """,
                arguments: StatementArguments([environmentID] + conditions.values) + [query.limit, query.offset]
            ).map(Self.personSummary)
        }
    }

    public func teamSummaries(environmentID: String, viewer: String) async throws -> [TeamSummary] {
        try await read { db in
            try Row.fetchAll(db.cachedStatement(sql: TeamStatements.summaries.sqlite), arguments: [viewer, environmentID]).map { row in
                TeamSummary(id: row["id"], name: row["name"], memberCount: row["member_count"], includesViewer: row["includes_viewer"])
            }
        }
    }

    public func auditLog(environmentID: String, filter: AuditFilter, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        let conditions = ConsoleTables.auditConditions(filter) { _ in "?" }
        return try await read { db in
            try Row.fetchAll(
                db.cachedStatement(sql: ConsoleStatements.auditPage(environment: "?", before: "?", conditions: conditions.sql, limit: "?")),
                arguments: StatementArguments([environmentID]) + [before ?? Int64.max] + StatementArguments(conditions.values) + [limit]
            ).map(Self.auditEntry)
        }
    }

    public func onboardingSummary(environmentID: String, since: Date, waitingLimit: Int) async throws -> OnboardingSummary {
        try await read { db in
            var tally = OnboardingTally()
            for row in try Row.fetchAll(
                db.cachedStatement(sql: ConsoleStatements.outcomeCounts.sqlite), arguments: [environmentID, since.timeIntervalSince1970]
            ) {
                tally.add(outcome: row["outcome"], reason: row["reason"], count: row["n"])
            }
            let waiting = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT u.*, NULL AS scim_display_name, NULL AS last_seen_at
                        FROM users u JOIN realms r ON r.user_id = u.id
                        WHERE u.environment_id = ? AND u.signed_in_at IS NOT NULL AND u.disabled_at IS NULL AND r.initialized = 0
                          AND \(OnboardingWaiting.hasSignedInDevice)
                        ORDER BY u.signed_in_at LIMIT ?
                        """),
                arguments: [environmentID, waitingLimit]
            ).map(Self.personSummary)
            return tally.summary(waitingForData: waiting)
        }
    }

    /// Counts a step of onboarding, in the transaction that took it.
    static func countOutcome(_ outcome: OnboardingOutcome, reason: String? = nil, environmentID: String, db: Database, now: Double) throws {
        try db.execute(cached: OnboardingStatements.countOutcome.sqlite, arguments: [environmentID, outcome.rawValue, reason, now])
    }

    private static func consoleSession(_ row: Row) -> ConsoleSession {
        ConsoleSession(
            idHash: row["id_hash"], userID: row["user_id"], environmentID: row["environment_id"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]), expiresAt: Date(timeIntervalSince1970: row["expires_at"]),
            idleExpiresAt: Date(timeIntervalSince1970: row["idle_expires_at"])
        )
    }

    private static func personSummary(_ row: Row) -> PersonSummary {
        PersonSummary(
            user: userRecord(row), displayName: row["scim_display_name"],
            signedInAt: (row["signed_in_at"] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastSeenAt: (row["last_seen_at"] as Double?).map(Date.init(timeIntervalSince1970:))
        )
    }
}
