/// The claims of a device access token (DESIGN.md, "Access token claims").
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var iat: Int
    public var nbf: Int
    public var exp: Int
    public var jti: String
    public var email: String
    public var env: String
    public var role: String
    public var deviceID: String
    public var realms: [String: RealmAccess]

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, nbf, exp, jti, email, env, role, realms
        case deviceID = "device_id"
    }
}
