/// Each environment's ``ClaimMappings`` as they bind admins: what the IdP manages, so that a
/// change to it by anyone else is refused (`managed_by_idp`).
package struct ClaimMappingDirectory: Sendable {
    private let byEnvironment: [String: ClaimMappings]

    /// `managed` gives each environment's id and the mappings that bind its admins.
    package init(_ managed: [(environmentID: String, mappings: ClaimMappings)]) {
        byEnvironment = Dictionary(managed.map { ($0.environmentID, $0.mappings) }, uniquingKeysWith: { first, _ in first })
    }

    package func mappings(environmentID: String) -> ClaimMappings {
        byEnvironment[environmentID] ?? .none
    }
}
