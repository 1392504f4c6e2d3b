/// What a SCIM group is, and what its members' roles become.
package enum ScimGroupRules {
    /// Whether a group with this name or external id sets its members' role
    /// (`roles_from_idp.map` names it) instead of being a team.
    package static func isRoleGroup(displayName: String, externalID: String?, mappings: ClaimMappings) -> Bool {
        guard let map = mappings.roles?.map else { return false }
        return map[displayName] != nil || externalID.map { map[$0] != nil } ?? false
    }

    /// Refuses a change that would turn `group` from a team into a role group or back: a group
    /// stays what it was created as. `group` is as the change's transaction read it.
    package static func checkKind(of group: ScimGroupRecord, as resource: ScimGroupResource, mappings: ClaimMappings) throws(ScimError) {
        guard isRoleGroup(displayName: resource.displayName, externalID: resource.externalID, mappings: mappings) == (group.teamID == nil)
        else { throw .mutability("A group cannot change between a team and a role group; delete it and create it anew.") }
    }

    /// Whose role a change of a role group changes one by one, in id order: who joined or
    /// left; after a rename (of its name or external id) only who left, since everyone in it
    /// then gets their role at once (``RoleRecompute``).
    package static func roleReview(added: [String], removed: [String], renamed: Bool) -> [String] {
        (renamed ? removed : added + removed).sorted()
    }

    /// Who joins and who leaves, each once and in id order, when a group's members become `wanted`.
    package static func membershipChanges(current: [String], wanted: [String]) -> (added: [String], removed: [String]) {
        let currentSet = Set(current), wantedSet = Set(wanted)
        return (wantedSet.subtracting(currentSet).sorted(), currentSet.subtracting(wantedSet).sorted())
    }
}

/// What a new SCIM group is: a team (`displayName` its name) or a role group.
public enum ScimGroupKind: Sendable {
    case team
    case roleGroup
}
