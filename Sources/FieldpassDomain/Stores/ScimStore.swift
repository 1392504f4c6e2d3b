public import Foundation

/// What SCIM provisioning keeps beyond the directory: people's SCIM attributes, who SCIM has
/// removed, and groups. Role, disabling, teams and memberships go through ``DirectoryStore``
/// and ``CredentialStore`` like the admin API's changes, audited with the actor `scim`.
///
/// SCIM lists every person of the environment except those it removed (DELETE), so that an
/// IdP matching on `userName` finds people who signed up before provisioning was connected.
/// The role a person in role groups with these names and external ids gets; `nil` keeps theirs.
public typealias RoleOfGroups = @Sendable ([String]) -> Role?

public protocol ScimStore: Sendable {
    /// People SCIM lists, by creation, with `filter` (`userName`, `externalId` or `id` equal to a value).
    func scimUsers(environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int) async throws -> ScimPage<ScimUserRecord>
    func scimUser(id: String, environmentID: String) async throws -> ScimUserRecord?
    /// Creates the person (and their personal realm) with `profile`, or takes back a person
    /// SCIM removed, enabled or disabled as `active` says: one transaction. Throws `ScimError`
    /// `uniqueness` for a person SCIM lists already, also when two requests create the same
    /// person at once.
    func provisionScimUser(
        email: String, profile: ScimProfile, active: Bool, environmentID: String, actor: String, now: Date
    ) async throws -> ScimUserRecord
    /// Replaces a listed person's email and profile, and enables or disables them as `active`
    /// says (`nil` leaves it): one transaction. Throws `DirectoryError.unknownUser`, or
    /// `ScimError` `uniqueness` when another person has the email.
    func updateScimUser(
        id: String, email: String, profile: ScimProfile, active: Bool?, environmentID: String, actor: String, now: Date
    ) async throws -> ScimUserRecord
    /// Takes a person out of SCIM (later reads answer 404) and disables them: one transaction.
    func removeScimUser(id: String, environmentID: String, actor: String, now: Date) async throws

    /// Groups by creation, with `filter` (`displayName`, `externalId` or `id` equal to a value).
    func scimGroups(environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int) async throws -> ScimPage<ScimGroupRecord>
    func scimGroup(id: String, environmentID: String) async throws -> ScimGroupRecord?
    /// Records a group: a team's (`teamID`, which becomes its id) or a role group's.
    func createScimGroup(teamID: String?, displayName: String, externalID: String?, environmentID: String, actor: String, now: Date) async throws -> ScimGroupRecord
    /// Sets a group's name and external id (a team's name is renamed through the directory).
    /// A role group's members then get, in the same transaction, the role that `roles` gives
    /// their role groups' names and external ids as they now are (`nil` keeps a role), each
    /// change audited with `actor`: a role group means its current name.
    func updateScimGroup(
        id: String, displayName: String, externalID: String?, roles: @escaping RoleOfGroups, environmentID: String, actor: String, now: Date
    ) async throws
    /// Forgets a role group (a team's group goes with its team).
    func deleteScimGroup(id: String, environmentID: String, actor: String, now: Date) async throws
    /// Adds or removes a person's membership of a role group.
    func changeRoleGroupMembership(groupID: String, userID: String, member: Bool, environmentID: String, actor: String, now: Date) async throws
    /// The names and external ids of the role groups the person is in.
    func roleGroupKeys(userID: String, environmentID: String) async throws -> [String]
    /// Whether SCIM provisioned the person (and lists them, or deleted them: only the IdP can
    /// bring them back, by creating them again), or a team is a SCIM group: what the admin API
    /// then leaves to the IdP.
    func isScimManaged(userID: String?, teamID: String?, environmentID: String) async throws -> Bool
}
