import Foundation

/// The one door for every change to people, teams, memberships, roles, grants and devices:
/// the admin API, the console, `/me`, the CLI and SCIM pass themselves as a
/// ``DirectoryCaller``. The caller goes down to the store, whose one transaction reads what
/// the change's checks depend on (the calling person as they stand now, what the IdP owns)
/// and asks ``DirectoryAuthority`` before the change's own rule decides what to write,
/// audited under the caller's actor. The sign-in's claims apply the same rules inside the
/// sign-in's own transaction (``SignInRules``), as the caller ``DirectoryCaller/idp(environmentID:)``.
package struct DirectoryChanges: Sendable {
    let store: any FieldpassStore
    /// Where the IdP sets roles or memberships, changes to them by anyone else are refused.
    let claimMappings: ClaimMappingDirectory

    package init(store: any FieldpassStore, claimMappings: ClaimMappingDirectory) {
        self.store = store
        self.claimMappings = claimMappings
    }

    /// Whether roles in the environment are the IdP's (claims at every sign-in, or SCIM role
    /// groups), for a page to say so before anyone tries.
    package func roleIsManaged(environmentID: String) -> Bool {
        (try? claimMappings.mappings(environmentID: environmentID).checkRoleChange()) == nil
    }

    package func setRole(_ role: Role, userID: String, by caller: DirectoryCaller) async throws -> UserRecord {
        try await store.setRole(role, userID: userID, by: caller, managed: managed(caller), now: Date())
    }

    /// Gives the person with this email `role`, creating them (a worker first, as at a first
    /// sign-in) when they never signed in: people are set up ahead of their first registration.
    /// A role the IdP manages is refused before anyone is created; the creation and the role
    /// are one transaction.
    package func setRole(_ role: Role, email: String, by caller: DirectoryCaller) async throws -> UserRecord {
        try await store.setRole(role, email: email, by: caller, managed: managed(caller), now: Date())
    }

    /// Sets, or with `nil` removes, one explicit grant.
    package func setGrant(
        _ access: RealmAccess?, realmPath: String, userID: String, by caller: DirectoryCaller
    ) async throws
        -> AccessFacts
    {
        try await store.changeGrant(access, realmPath: realmPath, userID: userID, by: caller, now: Date())
    }

    /// Signs one of a person's devices out; anyone may sign out their own.
    package func revokeDevice(id deviceID: String, userID: String, by caller: DirectoryCaller) async throws {
        try await store.revokeDevice(id: deviceID, userID: userID, by: caller, now: Date())
    }

    /// Offboards a person at once (every device revoked, no sign-in, refresh or API call), or
    /// lets them onboard again (their old devices stay revoked).
    package func setDisabled(_ disabled: Bool, userID: String, by caller: DirectoryCaller) async throws -> UserRecord {
        try await store.setDisabled(disabled, userID: userID, by: caller, now: Date())
    }

    /// Unbinds the IdP identity, e.g. after the IdP account was recreated: the next sign-in binds anew.
    package func resetIdentity(userID: String, by caller: DirectoryCaller) async throws {
        try await store.resetIdentity(userID: userID, by: caller, now: Date())
    }

    /// The person with this email, created when Fieldpass has not met them yet: a bootstrap
    /// admin signing in at the console first, or someone the CLI sets up ahead of their first
    /// registration.
    package func ensurePerson(email: String, by caller: DirectoryCaller) async throws -> UserRecord {
        try await store.ensureUser(email: email, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// What the IdP manages in the caller's environment.
    func managed(_ caller: DirectoryCaller) -> ClaimMappings {
        claimMappings.mappings(environmentID: caller.environmentID)
    }
}
