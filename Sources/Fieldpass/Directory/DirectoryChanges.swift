package import FieldpassDomain
import Foundation
import HTTPTypes

/// The one way to change people, teams and grants, for every caller: the admin API, the
/// console, SCIM and the CLI pass themselves as a ``DirectoryCaller``. Here it is decided once
/// whether the caller may (``DirectoryCaller/may(_:)``), and whether the IdP's say over roles,
/// memberships and SCIM groups binds them (it binds everyone but the IdP); the store then
/// applies the change's rule in one transaction, audited under the caller's actor. The
/// sign-in's claims apply the same rules inside the sign-in's own transaction
/// (``SignInRules``), with the caller ``DirectoryCaller/idp(environmentID:)``.
package struct DirectoryChanges: Sendable {
    let store: any FieldpassStore
    /// Where the IdP sets roles or memberships, changes to them are refused (`managed_by_idp`).
    let claimMappings: ClaimMappingDirectory

    package init(store: any FieldpassStore, claimMappings: ClaimMappingDirectory) {
        self.store = store
        self.claimMappings = claimMappings
    }

    /// Whether roles in the environment are the IdP's (claims at every sign-in, or SCIM role groups).
    func roleIsManaged(environmentID: String) -> Bool {
        (try? claimMappings.mappings(environmentID: environmentID).checkRoleChange()) == nil
    }

    package func setRole(_ role: Role, userID: String, by caller: DirectoryCaller) async throws -> UserRecord {
        try authorize(caller, .administer)
        let environmentID = caller.environmentID
        if !caller.isIdentityProvider, claimMappings.mappings(environmentID: environmentID).roles != nil {
            guard try await store.user(id: userID, environmentID: environmentID) != nil else { throw DirectoryError.unknownUser }
            try checkRoleChange(caller)
        }
        return try await store.setRole(role, userID: userID, environmentID: environmentID, actor: caller.actor, now: Date())
    }

    /// Gives the person with this email `role`, creating them (a worker first, as at a first
    /// sign-in) when they never signed in: people are set up ahead of their first registration.
    /// A role the IdP manages is refused before anyone is created; the creation and the role
    /// are one transaction.
    package func setRole(_ role: Role, email: String, by caller: DirectoryCaller) async throws -> UserRecord {
        try authorize(caller, .administer)
        try checkRoleChange(caller)
        return try await store.setRole(role, email: email, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// Sets, or with `nil` removes, one explicit grant.
    func setGrant(_ access: RealmAccess?, realmPath: String, userID: String, by caller: DirectoryCaller) async throws -> AccessFacts {
        try authorize(caller, .administer)
        return try await store.changeGrant(
            access, realmPath: realmPath, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date()
        )
    }

    /// Signs one of a person's devices out; anyone may sign out their own.
    package func revokeDevice(id deviceID: String, userID: String, by caller: DirectoryCaller) async throws {
        if caller.person?.id != userID { try authorize(caller, .administer) }
        try await store.revokeDevice(id: deviceID, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// Offboards a person at once (every device revoked, no sign-in, refresh or API call), or
    /// lets them onboard again (their old devices stay revoked).
    package func setDisabled(_ disabled: Bool, userID: String, by caller: DirectoryCaller) async throws -> UserRecord {
        try authorize(caller, .administer)
        // An admin who disabled themselves could not undo it without the CLI.
        if disabled, caller.person?.id == userID {
            throw APIError(.conflict, DirectoryErrorCode.cannotDisableSelf, "Admins cannot disable themselves.")
        }
        return try await store.setDisabled(disabled, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// Unbinds the IdP identity, e.g. after the IdP account was recreated: the next sign-in binds anew.
    package func resetIdentity(userID: String, by caller: DirectoryCaller) async throws {
        try authorize(caller, .administer)
        try await store.resetIdentity(userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    func authorize(_ caller: DirectoryCaller, _ action: DirectoryAction) throws {
        guard caller.may(action) else { throw DirectoryError.notAllowed(action) }
    }

    /// Refuses a role change when the IdP sets roles and the caller is not the IdP.
    private func checkRoleChange(_ caller: DirectoryCaller) throws {
        guard !caller.isIdentityProvider else { return }
        try claimMappings.mappings(environmentID: caller.environmentID).checkRoleChange()
    }
}
