/// Computes a person's effective realms: role defaults (with their teams filled in) plus
/// explicit grants; where several give the same path, the highest level wins.
public struct RealmPolicy: Sendable {
    let roles: RoleSettings

    /// A policy over the configured role table.
    public init(roles: RoleSettings) {
        self.roles = roles
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
        return realms
    }

    /// What a backend integration may do: manage every personal realm.
    public static let serviceAccountRealms: [String: RealmAccess] = ["/users/*": .manage]
}
