package import FieldpassDomain
import HTTPTypes

/// What SCIM provisioning takes out of the admins' hands, and how the admin API says so:
/// 409 `managed_by_idp`, as for what the sign-in's claims set.
///
/// - A team that is a SCIM group: its members, name and existence are the IdP's.
/// - A person SCIM provisioned: enabling them is the IdP's (`active: true`); disabling stays
///   open to admins, as an emergency brake between provisioning cycles.
/// - With `roles_from_idp` set, roles are the IdP's whatever its `sync` says, because role
///   groups set them between sign-ins.
enum ScimManagement {
    static let teamManaged = APIError(
        .conflict, DirectoryErrorCode.managedByIdP,
        "This team is provisioned by the identity provider through SCIM; change it there."
    )
}

extension EnvironmentSettings {
    /// The claim mappings the admin API and the CLI check role and membership changes against.
    package var managedMappings: ClaimMappings {
        var mappings = claimMappings
        if scim != nil, var roles = mappings.roles {
            roles.sync = .everySignIn
            mappings.roles = roles
        }
        return mappings
    }
}
