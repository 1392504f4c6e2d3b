import FieldpassDomain

/// The teams of a sign-in's claim (``SignInRules/Teams``): read, and written as decided.
extension StoreTransaction {
    /// The person's teams, and the teams named `names` (in any case, as the unique index of
    /// team names compares them). Callers hold the person's lock.
    func signInTeams(userID: String, environmentID: String, names: [String]) async throws -> SignInRules.Teams {
        var named: [String: SignInRules.Team] = [:]
        if !names.isEmpty {
            // Sign-ins that would create the same team take turns, so the second finds the first's team.
            try await execute(SignInStatements.takeTurnsOnTeamNames, environmentID, names)
        }
        let current = try await rows(SignInStatements.teamsOf, userID).map(SignInRules.Team.init(row:))
        if !names.isEmpty {
            for row in try await rows(SignInStatements.teamsNamed, environmentID, names) {
                named[try row.column("requested")] = try SignInRules.Team(row: row)
            }
        }
        return SignInRules.Teams(current: current, named: named)
    }

    /// Creates the decision's teams, then adds and removes the person's memberships.
    func applyTeams(of decision: SignInRules.Decision, userID: String, environmentID: String, now: Double) async throws {
        for team in decision.createTeams {
            guard try await value(TeamStatements.create, team.id, environmentID, team.name, now, as: String.self) != nil else {
                throw TeamNameTakenMeanwhile()
            }
        }
        for teamID in decision.join { try await execute(TeamStatements.addMember, teamID, userID, now) }
        for teamID in decision.leave { try await execute(TeamStatements.removeMember, teamID, userID) }
    }
}
