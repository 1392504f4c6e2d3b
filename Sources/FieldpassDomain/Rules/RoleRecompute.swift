/// Every member of a role group gets the role their role groups give them now, decided once
/// for all of them and written by a store in a few statements, however many they are. What a
/// role group's rename decides: the group means something else to each of its members, and
/// a read and two writes per member of a group of 10,000 held SQLite's write lock for seconds.
///
/// The rule is ``RoleClaimMapping``'s, which ``RoleClaimMapping/role(for:)`` applies to one
/// person's keys: a member gets the role of the first of ``tiers`` naming (by its keys) the
/// name or external id of one of their role groups, else ``otherwise``. A store evaluates it
/// in SQL for the group's members as they are when it applies the write (after the plan's
/// membership changes; people SCIM removed are left out, as they are from the group's
/// members), and writes ``changes``' entry, with its lifecycle events, for each member whose
/// role it changes.
package struct RoleRecompute: Sendable, Equatable {
    /// One change of a member's role, and its audit entry.
    package struct Change: Sendable, Equatable {
        package var from: Role
        package var to: Role
        /// The entry, naming the member as ``RoleRecompute/person``.
        package var entry: AuditRecord
    }

    /// How ``Change/entry`` names the member: the store writes their id in its place (ids are
    /// letters, digits and dashes, so the entry's JSON stays as it would be for them).
    package static let person = "{person}"

    /// The role group whose members' roles are decided.
    package var groupID: String
    /// The keys (role group names and external ids) that give each role, highest role first.
    package var tiers: [RoleClaimMapping.Tier]
    /// The role of a member whose role groups give none (`roles_from_idp.default`); `nil`
    /// keeps their role.
    package var otherwise: Role?
    /// Every change the rule can make to a member's role.
    package var changes: [Change]

    /// The recompute of `groupID`'s members under `mapping`; `nil` when it cannot change a
    /// role (no `roles_from_idp`, or one that maps nothing and has no default).
    package init?(groupID: String, mapping: RoleClaimMapping?, actor: String) {
        guard let mapping, !mapping.tiers.isEmpty || mapping.defaultRole != nil else { return nil }
        self.groupID = groupID
        tiers = mapping.tiers
        otherwise = mapping.defaultRole
        let outcomes = tiers.map(\.role) + (otherwise.map { [$0] } ?? [])
        changes = Set(outcomes).sorted { $0.rank > $1.rank }.flatMap { to in
            Role.allCases.filter { $0 != to }.map { from in
                Change(from: from, to: to, entry: .roleChanged(actor: actor, userID: Self.person, from: from, to: to))
            }
        }
    }
}
