/// One event as it travels on the socket; fields that do not apply to its type are left out.
public struct EventFrame: Codable, Sendable, Equatable {
    public var seq: Int
    public var type: String
    public var accessToken: String? = nil
    public var refreshToken: String? = nil
    public var tokenType: String? = nil
    public var expiresIn: Int? = nil
    public var realmPath: String? = nil
    public var error: String? = nil
    public var errorDescription: String? = nil

    enum CodingKeys: String, CodingKey {
        case seq, type
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case tokenType = "token_type"
        case expiresIn = "expires_in"
        case realmPath = "realm_path"
        case error
        case errorDescription = "error_description"
    }
}
