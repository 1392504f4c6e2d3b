import FieldpassDomain
import Foundation
import HTTPTypes

/// Every change an admin may make to people, with the admin API's rules: only admins
/// change, nothing the IdP manages changes, and each change is the store's, audited under
/// the caller's actor. The JSON admin API and the console both go through here, so neither
/// can allow what the other refuses.
struct DirectoryChanges: Sendable {
    let store: any FieldpassStore
    /// Where the IdP sets roles or memberships, changes to them are refused (`managed_by_idp`).
    let claimMappings: ClaimMappingDirectory

    /// Whether roles in the environment are the IdP's (claims at every sign-in, or SCIM role groups).
    func roleIsManaged(environmentID: String) -> Bool {
        (try? claimMappings.mappings(environmentID: environmentID).checkRoleChange()) == nil
    }

    func setRole(_ role: Role, userID: String, by caller: Identity) async throws -> UserRecord {
        try caller.require(.administer)
        let mappings = claimMappings.mappings(environmentID: caller.environmentID)
        if mappings.roles != nil {
            guard try await store.user(id: userID, environmentID: caller.environmentID) != nil else { throw DirectoryError.unknownUser }
            try mappings.checkRoleChange()
        }
        return try await store.setRole(role, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// Sets, or with `nil` removes, one explicit grant.
    func setGrant(_ access: RealmAccess?, realmPath: String, userID: String, by caller: Identity) async throws -> AccessFacts {
        try caller.require(.administer)
        return try await store.changeGrant(
            access, realmPath: realmPath, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date()
        )
    }

    func revokeDevice(id deviceID: String, userID: String, by caller: Identity) async throws {
        try caller.require(.administer)
        try await store.revokeDevice(id: deviceID, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// Offboards a person at once (every device revoked, no sign-in, refresh or API call), or
    /// lets them onboard again (their old devices stay revoked).
    func setDisabled(_ disabled: Bool, userID: String, by caller: Identity) async throws -> UserRecord {
        try caller.require(.administer)
        // An admin who disabled themselves could not undo it without the CLI.
        if disabled, userID == (try caller.requireUser().id) {
            throw APIError(.conflict, DirectoryErrorCode.cannotDisableSelf, "Admins cannot disable themselves.")
        }
        return try await store.setDisabled(disabled, userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }

    /// Unbinds the IdP identity, e.g. after the IdP account was recreated: the next sign-in binds anew.
    func resetIdentity(userID: String, by caller: Identity) async throws {
        try caller.require(.administer)
        try await store.resetIdentity(userID: userID, environmentID: caller.environmentID, actor: caller.actor, now: Date())
    }
}
