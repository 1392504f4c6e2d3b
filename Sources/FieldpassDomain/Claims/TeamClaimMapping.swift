/// `teams_from_idp`: the teams a sign-in's claim puts the person in.
///
/// A value of `claim` names a team through `map`, or else, with a `prefix`, by what follows the
/// prefix (`crew-North` is team North). Teams are matched by name and created when missing.
public struct TeamClaimMapping: Sendable, Equatable {
    public var claim: String
    /// Claim value → team name.
    public var map: [String: String]
    public var prefix: String?
    public var sync: ClaimSync

    /// The most teams one sign-in's claim may name; a claim naming more changes nothing.
    package static let maximumTeams = 100

    public init(claim: String, map: [String: String], prefix: String?, sync: ClaimSync) {
        self.claim = claim
        self.map = map
        self.prefix = prefix
        self.sync = sync
    }

    /// The team `value` names, or `nil`.
    package func teamName(for value: String) -> String? {
        if let name = map[value] { return name }
        guard let prefix, value.hasPrefix(prefix) else { return nil }
        return PrintableName.normalized(String(value.dropFirst(prefix.count)))
    }

    /// Whether the mapping can put people in a team of this name: any team with a prefix
    /// (every name follows it in some value), else the teams `map` names. Memberships of these
    /// teams are the IdP's; of the others, the admins'.
    package func produces(teamNamed name: String) -> Bool {
        prefix != nil || map.values.contains { $0.lowercased() == name.lowercased() }
    }
}
