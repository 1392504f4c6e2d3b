/// An environment's mappings from the IdP's claims (``RoleClaimMapping``, ``TeamClaimMapping``),
/// and what they take out of the admins' hands.
public struct ClaimMappings: Sendable, Equatable {
    public var roles: RoleClaimMapping?
    public var teams: TeamClaimMapping?

    /// No mapping: roles and teams are the admins' alone.
    public static let none = ClaimMappings()

    public init(roles: RoleClaimMapping? = nil, teams: TeamClaimMapping? = nil) {
        self.roles = roles
        self.teams = teams
    }

    /// Refuses an admin's role change when every sign-in sets the role from the IdP.
    package func checkRoleChange() throws(DirectoryError) {
        if roles?.sync == .everySignIn { throw .roleManagedByIdP }
    }

    /// Refuses an admin's membership change of a team that every sign-in sets from the IdP.
    package func checkMembershipChange(teamName: String) throws(DirectoryError) {
        guard let teams, teams.sync == .everySignIn, teams.produces(teamNamed: teamName) else { return }
        throw .membershipManagedByIdP
    }
}
