public import Foundation

/// What the admin console keeps and reads: its sign-ins in progress, its sessions, and the
/// views its pages need beyond the admin API's (people paged and searched, the audit log
/// filtered, onboarding in the last day).
///
/// Secrets are kept only as hashes: a sign-in by its state's, a session by its cookie's.
public protocol ConsoleStore: Sendable {
    /// Keeps a console sign-in until its state comes back to `/auth_callback`.
    func beginConsoleSignIn(_ signIn: ConsoleSignIn) async throws

    /// Takes the sign-in whose state hashes to `stateHash`, atomically: a second take, or one
    /// after `expiresAt`, gets `nil`.
    func takeConsoleSignIn(stateHash: String, now: Date) async throws -> ConsoleSignIn?

    func createConsoleSession(_ session: ConsoleSession) async throws

    /// The session whose cookie hashes to `idHash`, with its person as stored now, while it is
    /// live: before its idle and absolute ends, and its person neither disabled nor deleted.
    /// A live session's idle end moves to `now + idleTimeout` (never past its absolute end);
    /// a dead one is deleted and answers `nil`.
    func consoleSession(idHash: String, now: Date, idleTimeout: TimeInterval) async throws -> (session: ConsoleSession, user: UserRecord)?

    /// Deletes the session ("Sign out"); an unknown hash is not an error.
    func endConsoleSession(idHash: String) async throws

    /// Deletes expired sign-ins, dead sessions, and onboarding outcomes older than the day the
    /// Onboarding page shows.
    func sweepConsole(now: Date) async throws

    /// The person with this email in the environment, if Fieldpass knows them.
    func person(email: String, environmentID: String) async throws -> UserRecord?

    /// One page of the environment's people, by email, matching `query`.
    func people(_ query: PeopleQuery, environmentID: String) async throws -> [PersonSummary]

    /// The environment's teams, each with how many members it has and whether `viewer` (a
    /// user id) is one of them, in no order.
    func teamSummaries(environmentID: String, viewer: String) async throws -> [TeamSummary]

    /// Newest first, entries with `id < before` when given, matching `filter`.
    func auditLog(environmentID: String, filter: AuditFilter, before: Int64?, limit: Int) async throws -> [AuditEntry]

    /// The same entries, each with the names of the people, teams and devices it refers to by
    /// id (``NamedAuditEntry``), read with them in one statement.
    func namedAuditLog(environmentID: String, filter: AuditFilter, before: Int64?, limit: Int) async throws -> [NamedAuditEntry]

    /// What happened to onboarding in the environment since `since`, and who still waits for data.
    func onboardingSummary(environmentID: String, since: Date, waitingLimit: Int) async throws -> OnboardingSummary
}
