/// The sign-in's role and teams: a bootstrap admin's first sign-in, and the IdP's claims
/// (``MappedClaims``), applied when their `sync` says so.
extension SignInRules {
    /// The team names the store must look up for `attempt` (with the person's teams), or `nil`
    /// when its claim changes no team at this sign-in.
    package static func teamNamesToResolve(user: User, attempt: SignInAttempt) -> [String]? {
        guard !user.disabled, let teams = attempt.claims.teams, teams.mapping.sync.applies(signedInBefore: user.signedInBefore) else {
            return nil
        }
        return teams.names
    }

    /// The IdP's role when the claim gives one that applies now (it wins over `bootstrap_admins`);
    /// else admin for a bootstrap admin's first sign-in.
    static func decideRole(user: User, attempt: SignInAttempt, into decision: inout Decision) {
        let current = Role(stored: user.role)
        if let mapped = attempt.claims.role, mapped.sync.applies(signedInBefore: user.signedInBefore) {
            guard mapped.role != current else { return }
            decision.role = mapped.role
            decision.audit.append(.roleChanged(actor: DirectoryCaller.idpActor, userID: user.id, from: current, to: mapped.role))
        } else if attempt.promoteToAdmin, !user.signedInBefore, current != .admin {
            decision.role = .admin
            decision.audit.append(.roleChanged(actor: "bootstrap", userID: user.id, from: current, to: .admin))
        }
    }

    /// The person joins each team the claim names (created when missing) and leaves the teams
    /// the mapping produces that the claim no longer names; other teams are the admins'.
    static func decideTeams(user: User, attempt: SignInAttempt, teams: Teams, newTeamID: () -> String, into decision: inout Decision) {
        guard let mapped = attempt.claims.teams else { return }
        var named: Set<String> = []
        for name in mapped.names {
            let team: Team
            if let existing = teams.named[name] {
                team = existing
            } else {
                team = Team(id: newTeamID(), name: name)
                decision.createTeams.append(team)
                decision.audit.append(.teamCreated(actor: DirectoryCaller.idpActor, teamID: team.id, name: name))
            }
            guard named.insert(team.id).inserted, !teams.current.contains(where: { $0.id == team.id }) else { continue }
            decision.join.append(team.id)
            decision.audit.append(.teamMembership(actor: DirectoryCaller.idpActor, teamID: team.id, userID: user.id, member: true))
        }
        for team in teams.current where !named.contains(team.id) && mapped.mapping.produces(teamNamed: team.name) {
            decision.leave.append(team.id)
            decision.audit.append(.teamMembership(actor: DirectoryCaller.idpActor, teamID: team.id, userID: user.id, member: false))
        }
    }
}
