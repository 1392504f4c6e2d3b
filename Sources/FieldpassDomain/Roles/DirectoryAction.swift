/// What a person may do with their environment's directory (people, teams, grants, devices,
/// the audit log, the signing keys), decided here for the admin API and the console alike.
public enum DirectoryAction: Sendable, CaseIterable {
    /// See people, teams, grants and devices: admins and managers.
    case read
    /// Change any of them, and read the audit log and the keys: admins only.
    case administer
}

extension Role {
    /// Whether a person with this role may take `action`.
    package func may(_ action: DirectoryAction) -> Bool {
        switch action {
        case .read: self != .worker
        case .administer: self == .admin
        }
    }
}
