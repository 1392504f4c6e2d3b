/// Access levels on a realm; a higher level includes the lower ones.
public enum RealmAccess: String, Sendable, Codable, Comparable, CaseIterable {
    case read, write, manage

    private var rank: Int {
        switch self {
        case .read: 0
        case .write: 1
        case .manage: 2
        }
    }

    public static func < (lhs: RealmAccess, rhs: RealmAccess) -> Bool { lhs.rank < rhs.rank }
}

/// The realms a person may use, by role (DESIGN.md, "Roles and realms").
public enum RealmPermissions {
    /// Role defaults. Team realms (`/teams/{id}`) for workers come with team membership.
    public static func defaults(role: String, userID: String) -> [String: RealmAccess] {
        let personal = RealmPath.personal(userID: userID)
        switch role {
        case "admin":
            return ["/common": .manage, "/tasks": .manage, "/teams/*": .manage, "/users/*": .manage]
        case "manager":
            return ["/common": .write, "/tasks": .write, "/teams/*": .write]
        default:
            return ["/common": .write, personal: .write]
        }
    }
}
