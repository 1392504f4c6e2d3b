public import FieldpassDomain

/// The claims of an access token (DESIGN.md, "Access token claims").
///
/// Device tokens carry `email` and `device_id`; a service account's token has neither and
/// the role `service`.
public struct AccessTokenClaims: Codable, Sendable, Equatable {
    public var iss: String
    public var sub: String
    public var aud: String
    public var iat: Int
    public var nbf: Int
    public var exp: Int
    public var jti: String
    public var email: String?
    public var env: String
    public var role: String
    public var deviceID: String?
    /// The shift on a shared device the token is of; then `device_id` is the shared device.
    public var shiftID: String?
    public var realms: [String: RealmAccess]
    /// RFC 9449 §6.1: the key a bound token is used with (`jkt`); absent on bearer tokens.
    public var cnf: KeyConfirmation?
    /// How the person authenticated (RFC 8176), where Fieldpass itself did: `["pin", "badge"]`
    /// for a badge sign-in on a shared device; absent after a sign-in at the IdP.
    public var amr: [String]?

    /// The `role` of service account tokens.
    public static let serviceRole = "service"

    /// How the token is presented: `DPoP` when it is bound to a key, else `Bearer`.
    public var tokenType: String { KeyConfirmation.tokenType(boundTo: cnf?.jkt) }

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, iat, nbf, exp, jti, email, env, role, realms, cnf, amr
        case deviceID = "device_id"
        case shiftID = "shift_id"
    }

    /// The device record whose revocation ends the token: a shift's own, or the device's.
    public var revocableDeviceID: String? { shiftID ?? deviceID }
}
