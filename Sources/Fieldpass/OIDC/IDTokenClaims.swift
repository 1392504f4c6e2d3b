/// The ID token claims Fieldpass checks beyond the registered ones.
struct IDTokenClaims: Decodable, Sendable {
    var sub: String?
    var nonce: String?
    var azp: String?
    var email: String?
    var emailVerified: Bool?

    enum CodingKeys: String, CodingKey {
        case sub, nonce, azp, email
        case emailVerified = "email_verified"
    }

    /// Some IdPs send `email_verified` as the string "true"/"false".
    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        sub = try container.decodeIfPresent(String.self, forKey: .sub)
        nonce = try container.decodeIfPresent(String.self, forKey: .nonce)
        azp = try container.decodeIfPresent(String.self, forKey: .azp)
        email = try container.decodeIfPresent(String.self, forKey: .email)
        if let flag = try? container.decodeIfPresent(Bool.self, forKey: .emailVerified) {
            emailVerified = flag
        } else if let text = try? container.decodeIfPresent(String.self, forKey: .emailVerified) {
            emailVerified = text == "true"
        }
    }
}
