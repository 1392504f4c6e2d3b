/// Which realms each role may use, before team membership and explicit grants.
///
/// Keys: `roles.admin`, `roles.manager`, `roles.worker`, each a list of `PATH=LEVEL` with
/// LEVEL `read`, `write` or `manage`. PATH may contain `{user_id}` (the person's own id),
/// `{team_id}` (each team the person is a member of) or end in `/*` (every realm below).
/// Defaults follow DESIGN.md's table.
public struct RoleSettings: Sendable {
    /// Rules per role.
    public var rules: [Role: [RealmRule]]

    package static let defaults: [Role: [String]] = [
        .admin: ["/common=manage", "/tasks=manage", "/teams/*=manage", "/users/*=manage"],
        .manager: ["/common=write", "/tasks=write", "/teams/*=write", "/users/{user_id}=write"],
        .worker: ["/common=write", "/teams/{team_id}=write", "/users/{user_id}=write"],
    ]

    /// The built-in table.
    public static var standard: RoleSettings {
        var rules: [Role: [RealmRule]] = [:]
        for (role, texts) in defaults {
            rules[role] = texts.compactMap(RealmRule.init)
        }
        return RoleSettings(rules: rules)
    }

    package init(rules: [Role: [RealmRule]]) {
        self.rules = rules
    }
}
