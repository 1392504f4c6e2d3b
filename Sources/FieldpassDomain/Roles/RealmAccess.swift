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
