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

    public init(
        seq: Int, type: String, accessToken: String? = nil, refreshToken: String? = nil, tokenType: String? = nil,
        expiresIn: Int? = nil, realmPath: String? = nil, error: String? = nil, errorDescription: String? = nil
    ) {
        self.seq = seq
        self.type = type
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.tokenType = tokenType
        self.expiresIn = expiresIn
        self.realmPath = realmPath
        self.error = error
        self.errorDescription = errorDescription
    }

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
