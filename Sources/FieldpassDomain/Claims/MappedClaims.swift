/// What a sign-in's claims say of the person, decided by ``ClaimRules`` before the store is
/// asked; the store applies it with the sign-in (``SignInRules``), so the first token has it.
public struct MappedClaims: Sendable, Equatable {
    /// The role the claim gives, and when it applies.
    package struct MappedRole: Sendable, Equatable {
        package var role: Role
        package var sync: ClaimSync
    }

    /// The teams the claim names (distinct names, matched as the store matches names), and
    /// the mapping, which says when they apply and which teams are the IdP's.
    package struct MappedTeams: Sendable, Equatable {
        package var names: [String]
        package var mapping: TeamClaimMapping
    }

    /// A mapping whose claim changes nothing at this sign-in, and why: for the log.
    package struct Skipped: Sendable, Equatable {
        package enum Mapping: String, Sendable {
            case roles = "roles_from_idp"
            case teams = "teams_from_idp"
        }

        package enum Reason: String, Sendable {
            case missing, overage, unusable
            /// More teams than ``TeamClaimMapping/maximumTeams``.
            case tooManyTeams = "too_many_teams"
        }

        package var mapping: Mapping
        package var reason: Reason
    }

    /// `nil`: the person keeps their role.
    package var role: MappedRole?
    /// `nil`: the person keeps their teams.
    package var teams: MappedTeams?
    package var skipped: [Skipped]

    /// Nothing from the claims: the environment maps none, or they changed nothing.
    public static let none = MappedClaims()

    package init(role: MappedRole? = nil, teams: MappedTeams? = nil, skipped: [Skipped] = []) {
        self.role = role
        self.teams = teams
        self.skipped = skipped
    }
}
