/// The userinfo claims Fieldpass reads when the ID token carries no email.
struct UserInfoResponse: Decodable, Sendable {
    var sub: String
    var email: String?
}
