package import FieldpassDomain

extension EnvironmentSettings {
    /// The claim mappings that bind the environment's admins. With SCIM and `roles_from_idp`,
    /// roles are the IdP's whatever its `sync` says, because role groups set them between
    /// sign-ins.
    package var managedMappings: ClaimMappings {
        var mappings = claimMappings
        if scim != nil, var roles = mappings.roles {
            roles.sync = .everySignIn
            mappings.roles = roles
        }
        return mappings
    }
}

extension ClaimMappingDirectory {
    package init(environments: [EnvironmentSettings]) {
        self.init(environments.map { ($0.id, $0.managedMappings) })
    }
}
