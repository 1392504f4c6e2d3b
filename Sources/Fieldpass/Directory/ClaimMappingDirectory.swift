import FieldpassDomain

/// Each environment's ``ClaimMappings``, for the admin API to refuse what the IdP manages.
struct ClaimMappingDirectory: Sendable {
    private let byEnvironment: [String: ClaimMappings]

    init(environments: [EnvironmentSettings]) {
        byEnvironment = Dictionary(uniqueKeysWithValues: environments.map { ($0.id, $0.claimMappings) })
    }

    func mappings(environmentID: String) -> ClaimMappings {
        byEnvironment[environmentID] ?? .none
    }
}
