/// The ID token claims Fieldpass checks beyond the registered ones, and every claim for the
/// environment's mappings.
struct IDTokenClaims: Decodable, Sendable {
    var sub: String?
    var nonce: String?
    var azp: String?
    var email: String?
    var emailVerified: Bool?
    var all: IdPClaims

    enum CodingKeys: String, CodingKey {
        case sub, nonce, azp, email
        case emailVerified = "email_verified"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decodeIfPresent(String.self, forKey: .sub)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        azp = try container.decodeIfPresent(String.self, forKey: .azp)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        emailVerified = EmailVerifiedClaim.decode(from: container, forKey: .emailVerified)
        all = try IdPClaims(from: decoder)
    }
}
