/// Realm paths: `/` followed by segments of letters, digits, `-` and `_`.
public enum RealmPath {
    /// The personal realm of a user.
    public static func personal(userID: String) -> String { "/users/\(userID)" }

    /// The realm of a team.
    public static func team(id: String) -> String { "/teams/\(id)" }

    /// Whether `path` is a well-formed realm path; with `allowingPattern`, a final `*` segment
    /// (every realm below) is allowed too.
    public static func isValid(_ path: String, allowingPattern: Bool = false) -> Bool {
        guard path.hasPrefix("/"), path.utf8.count <= 200 else { return false }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.isEmpty, segments.count <= 8 else { return false }
        for (index, segment) in segments.enumerated() {
            if allowingPattern && segment == "*" && index == segments.count - 1 && index > 0 { continue }
            guard !segment.isEmpty, segment.utf8.count <= 64,
                segment.unicodeScalars.allSatisfy({
                    $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == "_")
                })
            else { return false }
        }
        return true
    }

    /// Whether `path` is a personal realm, and whose.
    public static func personalOwner(_ path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 3, segments[0].isEmpty, segments[1] == "users", isValid(path) else { return nil }
        return String(segments[2])
    }
}
