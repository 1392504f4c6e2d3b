/// The userinfo claims Fieldpass reads when the ID token carries no email, and every claim
/// for the environment's mappings (used where the ID token lacks theirs).
struct UserInfoResponse: Decodable, Sendable {
    var sub: String
    var email: String?
    var emailVerified: Bool?
    var all: IdPClaims

    enum CodingKeys: String, CodingKey {
        case sub, email
        case emailVerified = "email_verified"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decode(String.self, forKey: .sub)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = EmailVerifiedClaim.decode(from: container, forKey: .emailVerified)
        all = try IdPClaims(from: decoder)
    }
}
