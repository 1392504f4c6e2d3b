/// What a store reads, once, for ``ScimGroupPlans`` to decide a change of a SCIM group
/// (``ScimGroupPlans/reads(_:as:)``): which facts depend on the group's kind and on the change
/// is the rule's to say, not the store's. The store reads these into ``ScimGroupFacts``,
/// locking the people first, in id order, in one statement, then the team.
package struct ScimGroupReads: Equatable, Sendable {
    /// Who joins and who leaves, in id order: read and locked.
    package var people: [String]
    /// Whether every member of the group is locked with them: a role group's rename gives
    /// them all their role anew (``RoleRecompute``).
    package var everyMember: Bool
    /// Whether the names and external ids of each person's other role groups are read: a
    /// role group's members' roles follow all their role groups.
    package var otherRoleGroupKeys: Bool
    /// A team group's team: read and locked, after the people.
    package var team: String?
    /// The new name of a renamed team group, whose holder (any case) is read.
    package var holderOfName: String?
    /// Who joins: whom SCIM must list in the environment.
    package var joining: [String]

    package init(
        people: [String], everyMember: Bool, otherRoleGroupKeys: Bool, team: String?, holderOfName: String?, joining: [String]
    ) {
        self.people = people
        self.everyMember = everyMember
        self.otherRoleGroupKeys = otherRoleGroupKeys
        self.team = team
        self.holderOfName = holderOfName
        self.joining = joining
    }
}
