/// Computes a person's effective realms: role defaults (with their teams filled in) plus
/// explicit grants; where several give the same path, the highest level wins. The paths come
/// out as the person's environment names them (``RealmPrefixes``).
public struct RealmPolicy: Sendable {
    package let roles: RoleSettings
    package let prefixes: RealmPrefixes

    /// A policy over the configured role table.
    public init(roles: RoleSettings, prefixes: RealmPrefixes = RealmPrefixes()) {
        self.roles = roles
        self.prefixes = prefixes
    }

    /// Realm path (or pattern) → level.
    public func realms(for facts: AccessFacts) -> [String: RealmAccess] {
        var realms: [String: RealmAccess] = [:]
        func add(_ path: String, _ access: RealmAccess) {
            realms[path] = max(realms[path] ?? access, access)
        }
        for rule in roles.rules[facts.user.role] ?? [] {
            for path in rule.paths(userID: facts.user.id, teams: facts.teams) { add(path, rule.access) }
        }
        for (path, access) in facts.grants { add(path, access) }
        return prefixes.outward(realms, environmentID: facts.user.environmentID)
    }

    /// What a backend integration may do: manage every personal realm of its environment.
    public func serviceAccountRealms(environmentID: String) -> [String: RealmAccess] {
        prefixes.outward([Self.serviceAccountPath: .manage], environmentID: environmentID)
    }

    /// The realms a backend integration manages, before the environment's prefix.
    public static let serviceAccountPath = "/users/*"
}
