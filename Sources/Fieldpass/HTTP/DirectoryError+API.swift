import FieldpassDomain
import HTTPTypes

extension DirectoryError {
    /// How each directory refusal reaches a client.
    var apiError: APIError {
        switch self {
        case .unknownUser: APIError(.notFound, DirectoryErrorCode.unknownUser, "No such user in your environment.")
        case .unknownTeam: APIError(.notFound, DirectoryErrorCode.unknownTeam, "No such team in your environment.")
        case .unknownRealm: APIError(.notFound, DirectoryErrorCode.unknownRealm, "No such realm in your environment.")
        case .unknownDevice: APIError(.notFound, DirectoryErrorCode.unknownDevice, "No such device.")
        case .teamNameTaken: APIError(.conflict, DirectoryErrorCode.teamNameTaken, "A team with this name exists already.")
        case .sharedDeviceNameTaken:
            APIError(
                .conflict, DirectoryErrorCode.sharedDeviceNameTaken,
                "A shared device with this name is enrolled, or awaits enrollment, already: choose another name, or unenroll that device first."
            )
        case .roleManagedByIdP:
            APIError(
                .conflict, DirectoryErrorCode.managedByIdP,
                "Roles in this environment come from the identity provider at every sign-in (roles_from_idp); change the role there."
            )
        case .membershipManagedByIdP:
            APIError(
                .conflict, DirectoryErrorCode.managedByIdP,
                "This team's members come from the identity provider at every sign-in (teams_from_idp); change the membership there."
            )
        case .activeManagedByScim:
            APIError(
                .conflict, DirectoryErrorCode.managedByIdP,
                "This person is provisioned by the identity provider through SCIM; set them active there."
            )
        case .teamManagedByScim:
            APIError(
                .conflict, DirectoryErrorCode.managedByIdP,
                "This team is provisioned by the identity provider through SCIM; change it there."
            )
        case .cannotDisableSelf: APIError(.conflict, DirectoryErrorCode.cannotDisableSelf, "Admins cannot disable themselves.")
        case .unknownBadge: APIError(.notFound, DirectoryErrorCode.unknownBadge, "This person has no badge.")
        case .notAllowed(.read): APIError(.forbidden, AuthErrorCode.forbidden, "Only admins and managers may read this.")
        case .notAllowed(.administer): APIError(.forbidden, AuthErrorCode.forbidden, "Only an admin may do this.")
        }
    }
}
