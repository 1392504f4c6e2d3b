/// What a person may do; decides their default realms and the admin endpoints they may use.
public enum Role: String, Sendable, Codable, CaseIterable {
    case admin, manager, worker

    /// A role as a store keeps it. One no version of Fieldpass writes (a row edited by hand)
    /// reads as the least, a worker's, never as more.
    package init(stored: String) {
        self = Role(rawValue: stored) ?? .worker
    }

    /// Where several roles are offered (the values of an IdP's claim), the higher one wins.
    package var rank: Int {
        switch self {
        case .admin: 2
        case .manager: 1
        case .worker: 0
        }
    }
}
