import Foundation

/// What a store reads, in the transaction that changes a SCIM group, for ``ScimGroupPlans``.
package struct ScimGroupFacts: Sendable {
    /// A team group's team as stored.
    package var team: TeamRecord?
    /// The team holding the group's new name (any case), when a team group is renamed.
    package var holderOfName: String?
    /// The people ``ScimGroupPlans/peopleToRead(_:as:)`` names who are of the environment, by id.
    package var people: [String: UserRecord]
    /// For a role group: the names and external ids of each of those people's other role groups.
    package var otherRoleGroupKeys: [String: [String]]
    /// Who of those joining the group SCIM lists in the environment (people it removed are not).
    package var listed: Set<String>

    package init(
        team: TeamRecord?, holderOfName: String?, people: [String: UserRecord], otherRoleGroupKeys: [String: [String]],
        listed: Set<String>
    ) {
        self.team = team
        self.holderOfName = holderOfName
        self.people = people
        self.otherRoleGroupKeys = otherRoleGroupKeys
        self.listed = listed
    }
}

/// What creating, changing or deleting a SCIM group writes, decided once for both stores: the
/// group's row, its team's name and members or its role-group members, the roles those
/// members get, and the audit entries, in order.
package enum ScimGroupPlans {
    /// What a change of `group` to `resource` reads: a role group its people's other role
    /// groups, and every member when renamed; a team group its team, and the holder of its new
    /// name when renamed.
    package static func reads(_ group: ScimGroupRecord, as resource: ScimGroupResource) -> ScimGroupReads {
        let renamedTeam = group.teamID != nil && resource.displayName != group.displayName
        return ScimGroupReads(
            people: peopleToRead(group, as: resource), everyMember: recomputesRoles(group, as: resource),
            otherRoleGroupKeys: group.teamID == nil, team: group.teamID, holderOfName: renamedTeam ? resource.displayName : nil,
            joining: joining(group, as: resource))
    }

    /// The people a change of `group` to `resource` reads, in id order (the order PostgreSQL
    /// locks them in): who joins and who leaves. After a role group's rename everyone in it
    /// gets their role at once (``RoleRecompute``), which reads nobody here.
    package static func peopleToRead(_ group: ScimGroupRecord, as resource: ScimGroupResource) -> [String] {
        let (added, removed) = ScimGroupRules.membershipChanges(current: group.members, wanted: resource.members)
        return (added + removed).sorted()
    }

    /// Who joins the group in a change of `group` to `resource`, in id order: whom the store
    /// reads ``ScimGroupFacts/listed`` of.
    package static func joining(_ group: ScimGroupRecord, as resource: ScimGroupResource) -> [String] {
        ScimGroupRules.membershipChanges(current: group.members, wanted: resource.members).added
    }

    /// Whether the change gives every member of `group` their role anew, at once: a role
    /// group's rename (of its name or external id). PostgreSQL then locks them all first.
    package static func recomputesRoles(_ group: ScimGroupRecord, as resource: ScimGroupResource) -> Bool {
        group.teamID == nil && isRenamed(group, resource)
    }

    /// A new group's row, and its team's when a team group names no team yet. A team group
    /// named like a team admins made takes that team over, members and spelling included. A
    /// name any SCIM group has already (`nameTaken`, any case) is refused.
    package static func create(
        id: String, kind: ScimGroupKind, displayName: String, externalID: String?, nameTaken: Bool, team: TeamRecord?, actor: String
    ) throws -> DirectoryPlan {
        guard !nameTaken else { throw ScimError.uniqueness("A group with this displayName exists already.") }
        switch kind {
        case .roleGroup:
            return DirectoryPlan([
                .createScimGroup(id: id, teamID: nil, displayName: displayName, externalID: externalID),
                .audit(.roleGroupCreated(actor: actor, groupID: id, name: displayName)),
            ])
        case .team:
            let teamID = team?.id ?? id
            var plan = try team == nil ? TeamRules.create(id: id, name: displayName, holderOfName: nil, actor: actor) : .unchanged
            plan.writes.append(.createScimGroup(id: teamID, teamID: teamID, displayName: team?.name ?? displayName, externalID: externalID))
            return plan
        }
    }

    /// Making `group` what `resource` says: a renamed team group renames its team; members join
    /// and leave in id order; in a role group, everyone whose role groups changed gets the role
    /// `roles` (`roles_from_idp`) gives their role groups now (`nil` keeps a role): who joined
    /// or left one by one, and after a rename every member at once. Whoever joins must be a
    /// person SCIM lists in the environment (``ScimGroupFacts/listed``); who is in the group
    /// already is one (a person SCIM removes leaves its groups' lists). Otherwise the whole
    /// change fails.
    package static func save(
        _ group: ScimGroupRecord, as resource: ScimGroupResource, facts: ScimGroupFacts, roles: RoleClaimMapping?, actor: String
    ) throws -> DirectoryPlan {
        let (added, removed) = ScimGroupRules.membershipChanges(current: group.members, wanted: resource.members)
        if let stranger = added.first(where: { !facts.listed.contains($0) }) {
            throw ScimError.invalidValue("Member \(stranger.prefix(64)) is not a user of this environment.")
        }
        var plan = DirectoryPlan()
        let renamed = isRenamed(group, resource)
        if renamed {
            if group.teamID != nil, resource.displayName != group.displayName {
                plan.writes += try TeamRules.rename(facts.team, to: resource.displayName, holderOfName: facts.holderOfName, actor: actor)
                    .writes
            }
            plan.writes.append(.updateScimGroup(id: group.id, displayName: resource.displayName, externalID: resource.externalID))
        }
        // The team's members as stored, people SCIM removed included (the group leaves them out).
        let onTeam = Set(facts.team?.members ?? [])
        for (userID, member) in (added.map { ($0, true) } + removed.map { ($0, false) }).sorted(by: { $0.0 < $1.0 }) {
            if group.teamID != nil {
                plan.writes += try TeamRules.changeMembership(
                    of: userID, userKnown: facts.people[userID] != nil, in: facts.team, onTeam: onTeam.contains(userID), member: member,
                    actor: actor
                ).writes
            } else {
                guard facts.people[userID] != nil else { throw DirectoryError.unknownUser }
                plan.writes += [
                    member
                        ? .addRoleGroupMember(groupID: group.id, userID: userID)
                        : .removeRoleGroupMember(groupID: group.id, userID: userID),
                    .audit(.roleGroupMembership(actor: actor, groupID: group.id, userID: userID, member: member)),
                ]
            }
        }
        guard group.teamID == nil else { return plan }
        let keys = [resource.displayName] + (resource.externalID.map { [$0] } ?? [])
        let wanted = Set(resource.members)
        for userID in ScimGroupRules.roleReview(added: added, removed: removed, renamed: renamed) {
            let inGroup = wanted.contains(userID)
            guard let role = roles?.role(for: (facts.otherRoleGroupKeys[userID] ?? []) + (inGroup ? keys : [])) else { continue }
            plan.writes += try DirectoryRules.setRole(role, of: facts.people[userID], actor: actor).writes
        }
        if recomputesRoles(group, as: resource), let everyone = RoleRecompute(groupID: group.id, mapping: roles, actor: actor) {
            plan.writes.append(.recomputeRoles(everyone))
        }
        return plan
    }

    /// Forgetting a role group: its members leave it first, their roles following.
    package static func deleteRoleGroup(
        _ group: ScimGroupRecord, facts: ScimGroupFacts, roles: RoleClaimMapping?, actor: String
    ) throws -> DirectoryPlan {
        var plan = try save(group, as: emptied(group), facts: facts, roles: roles, actor: actor)
        plan.writes += [
            .deleteScimGroup(id: group.id), .audit(.roleGroupDeleted(actor: actor, groupID: group.id, name: group.displayName)),
        ]
        return plan
    }

    /// The group as it is, without members: what a deletion saves first.
    package static func emptied(_ group: ScimGroupRecord) -> ScimGroupResource {
        ScimGroupResource(displayName: group.displayName, externalID: group.externalID, members: [])
    }

    private static func isRenamed(_ group: ScimGroupRecord, _ resource: ScimGroupResource) -> Bool {
        resource.displayName != group.displayName || resource.externalID != group.externalID
    }
}
