public import FieldpassDomain
public import Foundation

/// Teams and their members (``TeamRules``). A change locks the rows it decides on (the person,
/// then the team, in ``LockedTable``'s order), so two changes of one team decide one after the
/// other.
extension TransactionalStore {
    public func teams(environmentID: String) async throws -> [TeamRecord] {
        try await reading { transaction in
            var teams: [TeamRecord] = []
            for row in try await transaction.rows(TeamStatements.withMembers, environmentID) {
                let id: String = try row.column("id")
                if teams.last?.id != id {
                    teams.append(
                        TeamRecord(
                            id: id, name: try row.column("name"), members: [],
                            createdAt: Date(timeIntervalSince1970: try row.column("created_at"))))
                }
                if let member = try row.column("user_id", as: String?.self) { teams[teams.count - 1].members.append(member) }
            }
            return teams
        }
    }

    public func team(id: String, environmentID: String) async throws -> TeamRecord? {
        try await reading { transaction in try await transaction.team(id: id, environmentID: environmentID) }
    }

    public func createTeam(name: String, by caller: DirectoryCaller, now: Date) async throws -> TeamRecord {
        try await writing { transaction in
            let caller = try await transaction.authorize(caller)
            let environmentID = caller.environmentID
            let id = UUID().uuidString.lowercased()
            let holder = try await transaction.teamID(named: name, environmentID: environmentID)
            let plan = try TeamRules.create(id: id, name: name, holderOfName: holder, actor: caller.actor)
            try await transaction.apply(plan, environmentID: environmentID, now: now)
            return try await transaction.requireTeam(id: id, environmentID: environmentID)
        }
    }

    public func renameTeam(id: String, to name: String, by caller: DirectoryCaller, now: Date) async throws -> TeamRecord {
        let team = try await writing { transaction in
            let caller = try await transaction.authorize(caller)
            let environmentID = caller.environmentID
            let scimManaged = try await transaction.isScimGroupTeam(id, environmentID: environmentID)
            try DirectoryAuthority.checkTeamChange(by: caller, scimManaged: scimManaged)
            let team = try await transaction.team(id: id, environmentID: environmentID, locking: true)
            let holder = try await transaction.teamID(named: name, environmentID: environmentID)
            let plan = try TeamRules.rename(team, to: name, holderOfName: holder, actor: caller.actor)
            try await transaction.apply(plan, environmentID: environmentID, now: now)
            return try await transaction.requireTeam(id: id, environmentID: environmentID)
        }
        await revocationsCaughtUp()
        return team
    }

    public func deleteTeam(id: String, by caller: DirectoryCaller, now: Date) async throws {
        try await writing { transaction in
            let caller = try await transaction.authorize(caller)
            let environmentID = caller.environmentID
            // Locked, so that the members the audit entry lists are the ones deleted with it.
            let team = try await transaction.team(id: id, environmentID: environmentID, locking: true)
            let scimManaged = try await transaction.isScimGroupTeam(id, environmentID: environmentID)
            try DirectoryAuthority.checkTeamChange(by: caller, scimManaged: scimManaged)
            try await transaction.apply(try TeamRules.delete(team, actor: caller.actor), environmentID: environmentID, now: now)
        }
        await revocationsCaughtUp()
    }

    /// Locks the person, then the team: a membership change waits for the person's other
    /// changes and for the team's rename or deletion.
    public func changeMembership(
        userID: String, teamID: String, member: Bool, by caller: DirectoryCaller, managed: ClaimMappings, now: Date
    ) async throws -> TeamRecord {
        let team = try await writing { transaction in
            let caller = try await transaction.authorize(caller)
            let environmentID = caller.environmentID
            let user = try await transaction.user(id: userID, environmentID: environmentID, locking: true)
            let team = try await transaction.team(id: teamID, environmentID: environmentID, locking: true)
            if let team, user != nil {
                let scimManaged = try await transaction.isScimGroupTeam(team.id, environmentID: environmentID)
                try DirectoryAuthority.checkMembershipChange(by: caller, of: team, scimManaged: scimManaged, managed: managed)
            }
            let plan = try TeamRules.changeMembership(of: userID, userKnown: user != nil, in: team, member: member, actor: caller.actor)
            try await transaction.apply(plan, environmentID: environmentID, now: now)
            return try await transaction.requireTeam(id: teamID, environmentID: environmentID)
        }
        await revocationsCaughtUp()
        return team
    }
}
