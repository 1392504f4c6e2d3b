/// What a sign-in's claims mean under an environment's ``ClaimMappings``: decided here once,
/// before the store is asked, and unit-tested without an IdP or a database.
///
/// A claim that is missing, was left out for overage or is not text changes nothing: the
/// person keeps their role and teams (a `default` role does not apply either), and the
/// mapping is listed in ``MappedClaims/skipped`` for the log.
package enum ClaimRules {
    /// The outcome of the claims `claim` reads by name.
    package static func mapped(_ mappings: ClaimMappings, claim: (String) -> ClaimValue) -> MappedClaims {
        var result = MappedClaims()
        if let roles = mappings.roles {
            switch claim(roles.claim) {
            case .values(let values):
                result.role = roles.role(for: values).map { MappedClaims.MappedRole(role: $0, sync: roles.sync) }
            case let other:
                result.skipped.append(MappedClaims.Skipped(mapping: .roles, reason: reason(other)))
            }
        }
        if let teams = mappings.teams {
            switch claim(teams.claim) {
            case .values(let values):
                let names = distinct(values.compactMap(teams.teamName))
                if names.count > TeamClaimMapping.maximumTeams {
                    result.skipped.append(MappedClaims.Skipped(mapping: .teams, reason: .tooManyTeams))
                } else {
                    result.teams = MappedClaims.MappedTeams(names: names, mapping: teams)
                }
            case let other:
                result.skipped.append(MappedClaims.Skipped(mapping: .teams, reason: reason(other)))
            }
        }
        return result
    }

    private static func reason(_ value: ClaimValue) -> MappedClaims.Skipped.Reason {
        switch value {
        case .values, .missing: .missing
        case .overage: .overage
        case .unusable: .unusable
        }
    }

    /// The names in order, each once whatever its case (team names are unique in any case).
    private static func distinct(_ names: [String]) -> [String] {
        var seen: Set<String> = []
        return names.filter { seen.insert($0.lowercased()).inserted }
    }
}
