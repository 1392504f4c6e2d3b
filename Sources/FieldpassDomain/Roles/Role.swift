/// What a person may do; decides their default realms and the admin endpoints they may use.
public enum Role: String, Sendable, Codable, CaseIterable {
    case admin, manager, worker
}
