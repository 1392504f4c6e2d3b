/// Creating, renaming and deleting teams and changing who is on them, decided once for every
/// caller (admin API, console, SCIM, CLI) and both stores.
package enum TeamRules {
    /// A new team named `name`, unless a team of the environment holds that name already (in
    /// any case: `holderOfName` is the team whose name equals it case-insensitively).
    package static func create(id: String, name: String, holderOfName: String?, actor: String) throws -> DirectoryPlan {
        guard holderOfName == nil else { throw DirectoryError.teamNameTaken }
        return DirectoryPlan([.createTeam(id: id, name: name), .audit(.teamCreated(actor: actor, teamID: id, name: name))])
    }

    /// Renaming to the team's own name changes nothing. Any other name held by a team, the
    /// team itself included (a change of case only), is taken.
    package static func rename(_ team: TeamRecord?, to name: String, holderOfName: String?, actor: String) throws -> DirectoryPlan {
        guard let team else { throw DirectoryError.unknownTeam }
        guard team.name != name else { return .unchanged }
        guard holderOfName == nil else { throw DirectoryError.teamNameTaken }
        return DirectoryPlan([.renameTeam(team, to: name), .audit(.teamRenamed(actor: actor, teamID: team.id, from: team.name, to: name))])
    }

    /// Deleting a team ends its memberships; the audit entry names the members it had.
    package static func delete(_ team: TeamRecord?, actor: String) throws -> DirectoryPlan {
        guard let team else { throw DirectoryError.unknownTeam }
        return DirectoryPlan([.deleteTeam(team), .audit(.teamDeleted(actor: actor, team: team))])
    }

    /// Adding (`member: true`) or removing `userID`. An unknown team is reported before an
    /// unknown person; a change that changes nothing (already on, already off) writes nothing.
    package static func changeMembership(
        of userID: String, userKnown: Bool, in team: TeamRecord?, member: Bool, actor: String
    ) throws -> DirectoryPlan {
        try changeMembership(
            of: userID, userKnown: userKnown, in: team, onTeam: team?.members.contains(userID) ?? false, member: member, actor: actor)
    }

    /// The same, told whether the person is on the team now (`onTeam`): a SCIM group's change
    /// asks for thousands of members, and a pass over the team's members for each was a
    /// pass over 10,000 for each of them.
    package static func changeMembership(
        of userID: String, userKnown: Bool, in team: TeamRecord?, onTeam: Bool, member: Bool, actor: String
    ) throws -> DirectoryPlan {
        guard let team else { throw DirectoryError.unknownTeam }
        guard userKnown else { throw DirectoryError.unknownUser }
        guard onTeam != member else { return .unchanged }
        let write: DirectoryWrite = member ? .addMember(teamID: team.id, userID: userID) : .removeMember(teamID: team.id, userID: userID)
        return DirectoryPlan([write, .audit(.teamMembership(actor: actor, teamID: team.id, userID: userID, member: member))])
    }
}
