import FieldpassDomain
import Foundation

/// SCIM groups: teams or role groups, each change planned by ``ScimGroupPlans`` on the facts
/// it asks for (``ScimGroupPlans/reads(_:as:)``).
extension TransactionalStore {
    public func scimGroups(
        environmentID: String, filter: (attribute: String, value: String)?, offset: Int, limit: Int
    ) async throws -> ScimPage<ScimGroupRecord> {
        try await scimPage(.groups(filter), environmentID: environmentID, offset: offset, limit: limit) { try await $0.scimGroup(row: $1) }
    }

    public func scimGroup(id: String, environmentID: String) async throws -> ScimGroupRecord? {
        try await reading { transaction in try await transaction.scimGroup(id: id, environmentID: environmentID) }
    }

    /// A team group named like a team admins made takes it over. That team is read unlocked
    /// here: its lock is taken with the members' facts, after the people's (``LockedTable``).
    public func createScimGroup(
        kind: ScimGroupKind, displayName: String, externalID: String?, members: [String], roles: RoleClaimMapping?,
        environmentID: String, actor: String, now: Date
    ) async throws -> ScimGroupRecord {
        let group = try await writing { transaction in
            let nameTaken = try await transaction.value(ScimStatements.groupNameTaken, environmentID, displayName, as: Bool.self) ?? false
            var team: TeamRecord?
            if kind == .team, let teamID = try await transaction.value(TeamStatements.idNamed, environmentID, displayName, as: String.self)
            {
                team = try await transaction.team(id: teamID, environmentID: environmentID)
            }
            let id = UUID().uuidString.lowercased()
            let plan = try ScimGroupPlans.create(
                id: id, kind: kind, displayName: displayName, externalID: externalID, nameTaken: nameTaken, team: team, actor: actor)
            try await transaction.apply(plan, environmentID: environmentID, now: now)
            let group = try await transaction.requireScimGroup(id: team?.id ?? id, environmentID: environmentID)
            let resource = ScimGroupResource(displayName: group.displayName, externalID: externalID, members: members)
            return try await transaction.save(group, as: resource, roles: roles, environmentID: environmentID, actor: actor, now: now)
        }
        await revocationsCaughtUp()
        return group
    }

    public func updateScimGroup(
        id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date,
        change: @escaping @Sendable (ScimGroupRecord) throws -> ScimGroupResource
    ) async throws -> ScimGroupRecord {
        let group = try await writing { transaction in
            let group = try await transaction.lockScimGroup(id: id, environmentID: environmentID)
            return try await transaction.save(
                group, as: try change(group), roles: roles, environmentID: environmentID, actor: actor, now: now)
        }
        await revocationsCaughtUp()
        return group
    }

    public func deleteScimGroup(id: String, roles: RoleClaimMapping?, environmentID: String, actor: String, now: Date) async throws {
        try await writing { transaction in
            let group = try await transaction.lockScimGroup(id: id, environmentID: environmentID)
            let facts = try await transaction.scimGroupFacts(
                ScimGroupPlans.reads(group, as: ScimGroupPlans.emptied(group)), of: group.id, environmentID: environmentID)
            try await transaction.apply(
                try ScimGroupPlans.deleteRoleGroup(group, facts: facts, roles: roles, actor: actor), environmentID: environmentID, now: now)
        }
        await revocationsCaughtUp()
    }
}

extension StoreTransaction {
    /// Makes the stored `group` what `resource` says (``ScimGroupPlans/save(_:as:facts:roles:actor:)``).
    fileprivate func save(
        _ group: ScimGroupRecord, as resource: ScimGroupResource, roles: RoleClaimMapping?, environmentID: String, actor: String,
        now: Date
    ) async throws -> ScimGroupRecord {
        let facts = try await scimGroupFacts(ScimGroupPlans.reads(group, as: resource), of: group.id, environmentID: environmentID)
        try await apply(
            try ScimGroupPlans.save(group, as: resource, facts: facts, roles: roles, actor: actor), environmentID: environmentID, now: now)
        return try await requireScimGroup(id: group.id, environmentID: environmentID)
    }

    /// The facts `reads` asks for, each read once, locked in ``LockedTable``'s order: the people
    /// in id order, in one statement (with every member of the group when `reads` says so), so
    /// that no two transactions deadlock on them, then the team.
    fileprivate func scimGroupFacts(_ reads: ScimGroupReads, of groupID: String, environmentID: String) async throws -> ScimGroupFacts {
        var locked: [UserRecord] = []
        if reads.everyMember {
            locked = try await rows(ScimStatements.membersAndPeople, groupID, reads.people, locking: .users).map { try UserRecord(row: $0) }
        } else if !reads.people.isEmpty {
            locked = try await rows(ScimStatements.people, reads.people, environmentID, locking: .users).map { try UserRecord(row: $0) }
        }
        let named = Set(reads.people)
        let people = Dictionary(
            locked.filter { named.contains($0.id) && $0.environmentID == environmentID }.map { ($0.id, $0) },
            uniquingKeysWith: { first, _ in first })
        var keys: [String: [String]] = [:]
        if reads.otherRoleGroupKeys, !people.isEmpty {
            for row in try await rows(ScimStatements.otherRoleGroupKeys, Array(people.keys), environmentID, groupID) {
                keys[try row.column("user_id"), default: []] += [
                    try row.column("display_name", as: String?.self), try row.column("external_id", as: String?.self),
                ].compactMap { $0 }
            }
        }
        var team: TeamRecord?
        if let teamID = reads.team { team = try await self.team(id: teamID, environmentID: environmentID, locking: true) }
        var holder: String?
        if let name = reads.holderOfName { holder = try await value(TeamStatements.idNamed, environmentID, name, as: String.self) }
        var listed: Set<String> = []
        if !reads.joining.isEmpty {
            listed = Set(try await values(ScimStatements.listedAmong, environmentID, reads.joining, as: String.self))
        }
        return ScimGroupFacts(team: team, holderOfName: holder, people: people, otherRoleGroupKeys: keys, listed: listed)
    }
}
