public import FieldpassDomain
public import Foundation

/// The console's sign-ins and sessions (``ConsoleSessionRules``), and the pages it reads: people,
/// teams, the audit log and onboarding.
extension TransactionalStore {
    public func beginConsoleSignIn(_ signIn: ConsoleSignIn) async throws {
        try await writing { transaction in
            try await transaction.execute(
                ConsoleStatements.beginSignIn, signIn.stateHash, signIn.environmentID, signIn.email, signIn.nonce, signIn.codeVerifier,
                signIn.browserBinding, signIn.expiresAt.timeIntervalSince1970)
        }
    }

    public func takeConsoleSignIn(stateHash: String, now: Date) async throws -> ConsoleSignIn? {
        try await writing { transaction in
            try await transaction.first(ConsoleStatements.takeSignIn, stateHash, now.timeIntervalSince1970).map(ConsoleSignIn.init(row:))
        }
    }

    public func createConsoleSession(_ session: ConsoleSession) async throws {
        try await writing { transaction in
            try await transaction.execute(
                ConsoleStatements.createSession, session.idHash, session.userID, session.environmentID,
                session.createdAt.timeIntervalSince1970, session.expiresAt.timeIntervalSince1970,
                session.idleExpiresAt.timeIntervalSince1970)
        }
    }

    /// Reads the session with its person and applies what ``ConsoleSessionRules`` decide: its
    /// idle end moves, or it is deleted.
    public func consoleSession(
        idHash: String, now: Date, idleTimeout: TimeInterval
    ) async throws -> (session: ConsoleSession, user: UserRecord)? {
        try await writing { transaction in
            guard let row = try await transaction.first(ConsoleStatements.sessionWithPerson, idHash) else { return nil }
            let session = try ConsoleSession(sessionRow: row)
            switch ConsoleSessionRules.check(session, person: try UserRecord(joinedRow: row), now: now, idleTimeout: idleTimeout) {
            case .answer(let session, let person):
                // Ended meanwhile (signed out, or its person disabled): it answers no more.
                let moved = try await transaction.first(ConsoleStatements.moveIdleEnd, session.idleExpiresAt.timeIntervalSince1970, idHash)
                return moved == nil ? nil : (session, person)
            case .end:
                try await transaction.execute(ConsoleStatements.endSession, idHash)
                return nil
            }
        }
    }

    public func endConsoleSession(idHash: String) async throws {
        try await writing { transaction in try await transaction.execute(ConsoleStatements.endSession, idHash) }
    }

    public func sweepConsole(now: Date) async throws {
        let timestamp = now.timeIntervalSince1970
        try await writing { transaction in
            try await transaction.execute(ConsoleStatements.purgeSignIns, timestamp)
            try await transaction.execute(ConsoleStatements.purgeSessions, timestamp)
            try await transaction.execute(ConsoleStatements.purgeOutcomes, timestamp - ConsoleTables.outcomeRetention)
        }
    }

    public func person(email: String, environmentID: String) async throws -> UserRecord? {
        try await reading { transaction in
            try await transaction.first(UserStatements.userByEmail, environmentID, DirectoryRules.emailKey(email)).map(
                UserRecord.init(row:))
        }
    }

    public func people(_ query: PeopleQuery, environmentID: String) async throws -> [PersonSummary] {
        let page = ConsoleStatements.peoplePage(query, environmentID: environmentID)
        return try await reading { transaction in try await transaction.rows(page).map(PersonSummary.init(row:)) }
    }

    public func teamSummaries(environmentID: String, viewer: String) async throws -> [TeamSummary] {
        try await reading { transaction in
            try await transaction.rows(TeamStatements.summaries, viewer, environmentID).map(TeamSummary.init(row:))
        }
    }

    public func auditLog(environmentID: String, filter: AuditFilter, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await namedAuditLog(environmentID: environmentID, filter: filter, before: before, limit: limit).map(\.entry)
    }

    public func namedAuditLog(environmentID: String, filter: AuditFilter, before: Int64?, limit: Int) async throws -> [NamedAuditEntry] {
        let page = ConsoleStatements.auditPage(environmentID: environmentID, filter: filter, before: before, limit: limit)
        return try await reading { transaction in try await transaction.rows(page).map(NamedAuditEntry.init(row:)) }
    }

    public func onboardingSummary(environmentID: String, since: Date, waitingLimit: Int) async throws -> OnboardingSummary {
        try await reading { transaction in
            var tally = OnboardingTally()
            for row in try await transaction.rows(ConsoleStatements.outcomeCounts, environmentID, since.timeIntervalSince1970) {
                tally.add(
                    outcome: try row.column("outcome"), reason: try row.column("reason"), count: Int(try row.column("n", as: Int64.self)))
            }
            let waiting = try await transaction.rows(ConsoleStatements.waitingForData, environmentID, waitingLimit).map(
                PersonSummary.init(row:))
            return tally.summary(waitingForData: waiting)
        }
    }
}
