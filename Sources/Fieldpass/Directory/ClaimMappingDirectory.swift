import FieldpassDomain

/// Each environment's ``ClaimMappings``, for the admin API to refuse what the IdP manages
/// (``EnvironmentSettings/managedMappings``: with SCIM, roles are the IdP's at any `sync`).
package struct ClaimMappingDirectory: Sendable {
    private let byEnvironment: [String: ClaimMappings]

    package init(environments: [EnvironmentSettings]) {
        byEnvironment = Dictionary(uniqueKeysWithValues: environments.map { ($0.id, $0.managedMappings) })
    }

    func mappings(environmentID: String) -> ClaimMappings {
        byEnvironment[environmentID] ?? .none
    }
}
