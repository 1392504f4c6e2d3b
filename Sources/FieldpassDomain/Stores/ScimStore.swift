public import Foundation

/// What SCIM provisioning keeps beyond the directory: people's SCIM attributes, who SCIM has
/// removed, and groups. Role, disabling, teams and memberships go through ``DirectoryStore``
/// and ``CredentialStore`` like the admin API's changes, audited with the actor `scim`.
///
/// SCIM lists every person of the environment except those it removed (DELETE), so that an
/// IdP matching on `userName` finds people who signed up before provisioning was connected.
///
/// `roles` is the environment's `roles_from_idp`: the role a member of role groups gets is the
/// one their groups' names and external ids give (``RoleClaimMapping/role(for:)``).
public protocol ScimStore: Sendable {
    /// People SCIM lists, by creation, with `filter` (`userName`, `externalId` or `id` equal to a value).
    func scimUsers(
        environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimUserRecord>
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
    func scimGroups(
        environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimGroupRecord>
    func scimGroup(id: String, environmentID: String) async throws -> ScimGroupRecord?
    /// Records a group with its members, in one transaction: a team's (the team of that name,
    /// created when there is none; its id becomes the group's) or a role group's, whose members
    /// get the role `roles` gives their role groups. Throws `ScimError` `uniqueness` when a
    /// SCIM group has the name already (any case).
    func createScimGroup(
        kind: ScimGroupKind, displayName: String, externalID: String?, members: [String], roles: RoleClaimMapping?,
        environmentID: String, actor: String, now: Date
    ) async throws -> ScimGroupRecord
    /// Makes a group's name, external id and members those given, in one transaction: a team
    /// group's team is renamed and its members changed; a role group means its current name,
    /// so after a rename every member, else everyone who joined or left, gets the role `roles`
    /// gives their role groups (`nil` keeps a role). Each change is audited with `actor`.
    /// Throws `DirectoryError.unknownTeam` for an unknown group, `unknownUser` for a member
    /// who is no person of the environment.
    func saveScimGroup(
        id: String, displayName: String, externalID: String?, members: [String], roles: RoleClaimMapping?,
        environmentID: String, actor: String, now: Date
    ) async throws -> ScimGroupRecord
    /// Forgets a role group, its members leaving it (their roles following, as in
    /// ``saveScimGroup(id:displayName:externalID:members:roles:environmentID:actor:now:)``), in
    /// one transaction. A team's group goes with its team.
    func deleteScimGroup(id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date) async throws
    /// Whether SCIM provisioned the person (and lists them, or deleted them: only the IdP can
    /// bring them back, by creating them again), or a team is a SCIM group: what the admin API
    /// then leaves to the IdP.
    func isScimManaged(userID: String?, teamID: String?, environmentID: String) async throws -> Bool
}
