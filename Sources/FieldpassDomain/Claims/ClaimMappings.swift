/// An environment's mappings from the IdP's claims (``RoleClaimMapping``, ``TeamClaimMapping``).
public struct ClaimMappings: Sendable, Equatable {
    public var roles: RoleClaimMapping?
    public var teams: TeamClaimMapping?

    /// No mapping: roles and teams are the admins' alone.
    public static let none = ClaimMappings()

    public init(roles: RoleClaimMapping? = nil, teams: TeamClaimMapping? = nil) {
        self.roles = roles
        self.teams = teams
    }
}
