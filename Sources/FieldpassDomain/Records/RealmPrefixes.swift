/// `environments[].realm_prefix`: what each environment puts in front of its realm paths
/// wherever a path leaves Fieldpass (tokens, the admin and integration APIs, the feed, the
/// events), so that one sync server can serve several companies without their `/common`
/// being one realm.
///
/// Paths are stored without it: a prefix can be set or changed without touching a row, and
/// everything inside Fieldpass (policy rules, grants, the store) speaks the plain path.
public struct RealmPrefixes: Sendable, Equatable {
    private let prefixes: [String: String]

    /// Environment id → prefix (`/acme`); environments not named have none.
    public init(_ prefixes: [String: String] = [:]) {
        self.prefixes = prefixes.filter { !$0.value.isEmpty }
    }

    /// The environment's prefix, `""` when it has none.
    public func prefix(of environmentID: String) -> String {
        prefixes[environmentID] ?? ""
    }

    /// `path` as the environment's devices, backends and admins see it.
    public func outward(_ path: String, environmentID: String) -> String {
        prefix(of: environmentID) + path
    }

    /// Realm paths (or patterns) → level, as the environment sees them.
    public func outward<Access>(_ realms: [String: Access], environmentID: String) -> [String: Access] {
        let prefix = prefix(of: environmentID)
        guard !prefix.isEmpty else { return realms }
        return Dictionary(uniqueKeysWithValues: realms.map { (prefix + $0.key, $0.value) })
    }

    /// The stored form of a path that a caller of the environment gave; `nil` when it is not
    /// under the environment's prefix (it names another environment's realm, or none).
    public func inward(_ path: String, environmentID: String) -> String? {
        let prefix = prefix(of: environmentID)
        guard !prefix.isEmpty else { return path }
        guard path.hasPrefix(prefix + "/") else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    /// For a caller that names no environment (the CLI): the environment whose prefix `path`
    /// carries, with the stored path; `nil` as the environment when no prefix matches.
    public func resolve(_ path: String) -> (environmentID: String?, path: String) {
        // The longest prefix wins, so `/acme` does not take `/acme/north`'s paths.
        for (environmentID, prefix) in prefixes.sorted(by: { $0.value.count > $1.value.count })
        where path.hasPrefix(prefix + "/") {
            return (environmentID, String(path.dropFirst(prefix.count)))
        }
        return (nil, path)
    }
}
