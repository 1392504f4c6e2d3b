import Foundation

/// One line of a role's realm table: a path template and the level it grants.
public struct RealmRule: Sendable, Equatable {
    /// Path with optional `{user_id}` / `{team_id}` placeholders, or a `/*` pattern.
    public var template: String
    /// Level granted.
    public var access: RealmAccess

    /// Parses `PATH=LEVEL`.
    public init?(_ text: String) {
        let parts = text.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, let access = RealmAccess(rawValue: parts[1]) else { return nil }
        let concrete = parts[0].replacingOccurrences(of: "{user_id}", with: "x").replacingOccurrences(of: "{team_id}", with: "x")
        guard RealmPath.isValid(concrete, allowingPattern: true) else { return nil }
        template = parts[0]
        self.access = access
    }

    /// The widest realm the rule can name, as a path or pattern: the template up to its first
    /// placeholder, which may stand for any segment (`/users/{user_id}` → `/users/*`).
    package var reach: String {
        let segments = template.split(separator: "/", omittingEmptySubsequences: false)
        guard let open = segments.firstIndex(where: { $0.contains("{") }) else { return template }
        return segments[..<open].joined(separator: "/") + "/*"
    }

    /// The concrete paths for a person with `userID` on `teams`.
    package func paths(userID: String, teams: [String]) -> [String] {
        let withUser = template.replacingOccurrences(of: "{user_id}", with: userID)
        guard withUser.contains("{team_id}") else { return [withUser] }
        return teams.map { withUser.replacingOccurrences(of: "{team_id}", with: $0) }
    }
}
