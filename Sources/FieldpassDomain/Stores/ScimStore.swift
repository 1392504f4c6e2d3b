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
    /// Changes a listed person as `change` says of them as stored (a PUT's change ignores
    /// them, a PATCH's applies its operations to them): read, changed, checked and written in
    /// one transaction, under the person's lock, so that of two changes of one person at once
    /// each takes effect, in some order. Their email (the change's `userName`, a work email the
    /// caller checked) and profile become the change's, and
    /// `active` enables or disables them (`nil` leaves it). An error `change` throws undoes
    /// everything and reaches the caller as thrown. Throws `DirectoryError.unknownUser` for a
    /// person SCIM does not list, or `ScimError` `uniqueness` when another person has the email.
    func updateScimUser(
        id: String, environmentID: String, actor: String, now: Date,
        change: @escaping @Sendable (ScimUserRecord) throws -> ScimUserResource
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
    /// SCIM group has the name already (any case), `invalidValue` when a member is not a
    /// person SCIM lists in the environment.
    func createScimGroup(
        kind: ScimGroupKind, displayName: String, externalID: String?, members: [String], roles: RoleClaimMapping?,
        environmentID: String, actor: String, now: Date
    ) async throws -> ScimGroupRecord
    /// Makes a group what `change` says of it as stored (a PUT's change ignores it, a PATCH's
    /// applies its operations to it): read, changed, checked and written in one transaction,
    /// under the group's lock, so that of two changes of one group at once each takes effect,
    /// in some order. A team group's team is renamed and its members changed; a role group
    /// means its current name, so after a rename every member, else everyone who joined or
    /// left, gets the role `roles` gives their role groups (`nil` keeps a role). Everyone who
    /// joins must be a person SCIM lists in the environment, as the transaction reads them
    /// (`ScimError` `invalidValue`). Each change is audited with `actor`. An error `change`
    /// throws undoes everything and reaches the caller as thrown. Throws
    /// `DirectoryError.unknownTeam` for an unknown group.
    func updateScimGroup(
        id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date,
        change: @escaping @Sendable (ScimGroupRecord) throws -> ScimGroupResource
    ) async throws -> ScimGroupRecord
    /// Forgets a role group, its members leaving it (their roles following, as in
    /// ``updateScimGroup(id:roles:environmentID:actor:now:change:)``), in
    /// one transaction. A team's group goes with its team.
    func deleteScimGroup(id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date) async throws
    /// Whether SCIM provisioned the person (and lists them, or deleted them: only the IdP can
    /// bring them back, by creating them again), or a team is a SCIM group: what the admin API
    /// then leaves to the IdP.
    func isScimManaged(userID: String?, teamID: String?, environmentID: String) async throws -> Bool
}
