/// Codes of the admin and `/me` APIs.
enum DirectoryErrorCode: String, APIErrorCode {
    case unknownUser = "unknown_user"
    case unknownTeam = "unknown_team"
    case unknownRealm = "unknown_realm"
    case unknownDevice = "unknown_device"
    case teamNameTaken = "team_name_taken"
    /// Another shared device of the environment, enrolled or awaiting enrollment, has the name.
    case sharedDeviceNameTaken = "shared_device_name_taken"
    case invalidRole = "invalid_role"
    case invalidAccess = "invalid_access"
    case invalidRealmPath = "invalid_realm_path"
    case cannotDisableSelf = "cannot_disable_self"
    case managedByIdP = "managed_by_idp"
    /// Nobody holds the shared device: it has no shift to end.
    case noOpenShift = "no_open_shift"
    case unknownBadge = "unknown_badge"
}
