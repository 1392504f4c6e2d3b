/// `environments[].realm_prefix`: what each environment puts in front of its realm paths
/// wherever a path leaves Fieldpass (tokens, the admin and integration APIs, the feed, the
/// events), so that one sync server can serve several companies without their `/common`
/// being one realm.
///
/// Paths are stored without it: a prefix can be set or changed without touching a row, and
/// everything inside Fieldpass (policy rules, grants, the store) speaks the plain path.
///
/// The sync server trusts every token Fieldpass signs, whichever environment it names, so one
/// rule holds for every path an environment hands out or takes in: it never equals, lies
/// under, or (as a pattern) covers another environment's prefix (``reachesAnother(_:environmentID:)``),
/// compared without regard to case: a sync server on a case-folding file system, or one that
/// folds paths, would take `/ACME/common` for `/acme/common`. An environment without a prefix
/// may name any other path.
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

    /// Realm paths (or patterns) → level, as the environment sees them; a path that would
    /// reach another environment's realms (a grant stored before this rule existed, say) is
    /// left out.
    public func outward<Access>(_ realms: [String: Access], environmentID: String) -> [String: Access] {
        var named: [String: Access] = [:]
        for (path, access) in realms {
            let outwardPath = outward(path, environmentID: environmentID)
            if !reachesAnother(outwardPath, environmentID: environmentID) { named[outwardPath] = access }
        }
        return named
    }

    /// The stored form of a path that a caller of the environment gave; `nil` when it is not
    /// under the environment's prefix or reaches another environment's realms.
    public func inward(_ path: String, environmentID: String) -> String? {
        guard !reachesAnother(path, environmentID: environmentID) else { return nil }
        let prefix = prefix(of: environmentID)
        guard !prefix.isEmpty else { return path }
        guard path.hasPrefix(prefix + "/") else { return nil }
        return String(path.dropFirst(prefix.count))
    }

    /// Whether `path` (or pattern), as environment `environmentID` names it, equals, lies
    /// under, or covers another environment's prefix: `/acme`, `/acme/common`, `/acme/*` and
    /// `/*` all reach `/acme`.
    public func reachesAnother(_ path: String, environmentID: String) -> Bool {
        prefixes.contains { other, prefix in
            other != environmentID && Self.reaches(path, prefix)
        }
    }

    /// The first other environment, with its prefix, whose realms `path` reaches; for
    /// messages that must name it.
    public func reachedEnvironment(_ path: String, environmentID: String) -> (id: String, prefix: String)? {
        prefixes.sorted { $0.key < $1.key }
            .first { other, prefix in other != environmentID && Self.reaches(path, prefix) }
            .map { (id: $0.key, prefix: $0.value) }
    }

    /// Realm paths are ASCII (``RealmPath/isValid(_:allowingPattern:)``), so lower-casing them
    /// folds every spelling a case-insensitive reader would take as one.
    package static func reaches(_ path: String, _ prefix: String) -> Bool {
        let path = path.lowercased()
        let prefix = prefix.lowercased()
        if path == prefix || path.hasPrefix(prefix + "/") { return true }
        guard path.hasSuffix("/*") else { return false }
        return (prefix + "/").hasPrefix(String(path.dropLast(1)))
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
