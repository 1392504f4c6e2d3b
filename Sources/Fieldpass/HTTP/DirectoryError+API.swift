extension DirectoryError {
    /// How each directory refusal reaches a client.
    var apiError: APIError {
        switch self {
        case .unknownUser: APIError(.notFound, "unknown_user", "No such user in your environment.")
        case .unknownTeam: APIError(.notFound, "unknown_team", "No such team in your environment.")
        case .unknownRealm: APIError(.notFound, "unknown_realm", "No such realm in your environment.")
        case .unknownDevice: APIError(.notFound, "unknown_device", "No such device.")
        case .teamNameTaken: APIError(.conflict, "team_name_taken", "A team with this name exists already.")
        }
    }
}
