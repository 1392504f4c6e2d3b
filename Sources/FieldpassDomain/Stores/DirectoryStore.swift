public import Foundation

/// People, roles, teams, grants, the audit log, and what backend integrations read.
///
/// Every change is written with its audit entry in one transaction, and only when it
/// changes something: repeating a change is not an error and logs once. Everything is
/// scoped to one environment; an id from another environment is unknown. A change names its
/// caller, whose permission and the facts it depends on (the calling person's role, what the
/// IdP manages) are checked inside that transaction (``DirectoryAuthority``); `managed` is
/// what the environment's claim mappings take out of admins' hands. Callers go through
/// ``DirectoryChanges``.
public protocol DirectoryStore: Sendable {
    func users(environmentID: String) async throws -> [UserRecord]
    func user(id: String, environmentID: String) async throws -> UserRecord?
    /// The user with this email, created (with their personal realm) if absent; `actor` is
    /// who the audit log and the lifecycle events name for a creation.
    func ensureUser(email: String, environmentID: String, actor: String, now: Date) async throws -> UserRecord
    func setRole(_ role: Role, userID: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date) async throws -> UserRecord
    /// Gives the person with this email `role`, created first (with their personal realm, a
    /// worker as at a first sign-in) when absent: one transaction.
    func setRole(_ role: Role, email: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date) async throws -> UserRecord

    func accessFacts(userID: String, environmentID: String) async throws -> AccessFacts?

    func teams(environmentID: String) async throws -> [TeamRecord]
    func team(id: String, environmentID: String) async throws -> TeamRecord?
    func createTeam(name: String, by caller: DirectoryCaller, now: Date) async throws -> TeamRecord
    func renameTeam(id: String, to name: String, by caller: DirectoryCaller, now: Date) async throws -> TeamRecord
    func deleteTeam(id: String, by caller: DirectoryCaller, now: Date) async throws
    /// Adds (`member: true`) or removes a person's membership of a team.
    func changeMembership(
        userID: String, teamID: String, member: Bool, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws -> TeamRecord

    /// Sets, or with `nil` removes, one explicit grant.
    func changeGrant(
        _ access: RealmAccess?, realmPath: String, userID: String, by caller: DirectoryCaller, now: Date
    ) async throws
        -> AccessFacts

    /// User realms of the environment with `feedSeq > after`, in feed order.
    func realmFeed(environmentID: String, after: Int64, initialized: Bool?, limit: Int) async throws -> [RealmFeedEntry]
    /// The newest position of the realm feed; no cursor can be beyond it.
    func realmFeedPosition() async throws -> Int64
}

extension DirectoryStore {
    public func addMember(
        userID: String, teamID: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws
        -> TeamRecord
    {
        try await changeMembership(userID: userID, teamID: teamID, member: true, by: caller, managed: managed, now: now)
    }

    public func removeMember(
        userID: String, teamID: String, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws
        -> TeamRecord
    {
        try await changeMembership(userID: userID, teamID: teamID, member: false, by: caller, managed: managed, now: now)
    }
}

extension ConsoleStore {
    /// The whole audit log, newest first, entries with `id < before` when given.
    public func auditLog(environmentID: String, before: Int64?, limit: Int) async throws -> [AuditEntry] {
        try await auditLog(environmentID: environmentID, filter: .all, before: before, limit: limit)
    }
}

extension DirectoryStore {
    /// ``ensureUser(email:environmentID:actor:now:)`` for the CLI, which creates people ahead
    /// of their first registration.
    public func ensureUser(email: String, environmentID: String, now: Date) async throws -> UserRecord {
        try await ensureUser(email: email, environmentID: environmentID, actor: DirectoryCaller.cliActor, now: now)
    }
}
