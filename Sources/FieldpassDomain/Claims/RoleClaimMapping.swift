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

    /// The role `values` give, or `nil` to keep the person's.
    package func role(for values: [String]) -> Role? {
        values.compactMap { map[$0] }.max { $0.rank < $1.rank } ?? defaultRole
    }
}
