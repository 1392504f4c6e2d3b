/// `roles_from_idp`: the role a sign-in's claim gives.
///
/// Each value of `claim` that `map` names gives a role, and the highest of them wins (admin,
/// then manager, then worker). When no value maps, `defaultRole` applies, or without one the
/// person keeps their role.
public struct RoleClaimMapping: Sendable, Equatable {
    public var claim: String
    /// Claim value → role.
    public var map: [String: Role]
    public var defaultRole: Role?
    public var sync: ClaimSync

    public init(claim: String, map: [String: Role], defaultRole: Role?, sync: ClaimSync) {
        self.claim = claim
        self.map = map
        self.defaultRole = defaultRole
        self.sync = sync
    }

    /// The values that give one role.
    package struct Tier: Sendable, Equatable {
        package var role: Role
        /// In order, so that what is built from them reads the same every time.
        package var values: [String]
    }

    /// The values that give each role, the highest role first (roles no value gives are left
    /// out): the rule ``role(for:)`` applies to one person's values, and a store applies to
    /// many people at once (``RoleRecompute``).
    package var tiers: [Tier] {
        Role.allCases.sorted { $0.rank > $1.rank }.compactMap { role in
            let values = map.filter { $0.value == role }.keys.sorted()
            return values.isEmpty ? nil : Tier(role: role, values: values)
        }
    }

    /// The role `values` give: the first tier one of them is in, else `defaultRole`; `nil`
    /// keeps the person's.
    package func role(for values: [String]) -> Role? {
        let given = Set(values)
        return tiers.first { $0.values.contains(where: given.contains) }?.role ?? defaultRole
    }
}
