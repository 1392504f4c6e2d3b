/// What a SCIM group is, and what its members' roles become.
package enum ScimGroupRules {
    /// Whether a group with this name or external id sets its members' role
    /// (`roles_from_idp.map` names it) instead of being a team.
    package static func isRoleGroup(displayName: String, externalID: String?, mappings: ClaimMappings) -> Bool {
        guard let map = mappings.roles?.map else { return false }
        return map[displayName] != nil || externalID.map { map[$0] != nil } ?? false
    }

    /// The role a person in the role groups with `keys` (their names and external ids) gets:
    /// the highest any maps to, else `roles_from_idp.default`; `nil` keeps their role.
    package static func role(groupKeys keys: [String], mappings: ClaimMappings) -> Role? {
        mappings.roles?.role(for: keys)
    }

    /// Whose role a change of a role group may change, in id order: after a rename (of its
    /// name or external id) everyone in it before or after, else who joined or left.
    package static func roleReview(current: [String], added: [String], removed: [String], renamed: Bool) -> [String] {
        Set(renamed ? current + added : added + removed).sorted()
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
