public import Foundation

/// The device's tokens: a short-lived access token for the sync server and the APIs, and the
/// refresh token that gets the next one (each refresh token works once: Fieldpass rotates it).
public struct TokenSet: Codable, Sendable, Equatable {
    /// The JWT to send as `Authorization: Bearer`.
    public var accessToken: String
    /// What gets the next access token; a secret to keep in the Keychain or a private file.
    public var refreshToken: String
    /// When the access token expires.
    public var expiresAt: Date

    public init(accessToken: String, refreshToken: String, expiresAt: Date) {
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token"
        case refreshToken = "refresh_token"
        case expiresAt = "expires_at"
    }
}

extension TokenSet: CustomStringConvertible, CustomReflectable {
    /// Says when the tokens expire, never what they are: a printed, dumped or logged
    /// `TokenSet` must not hand them to whoever reads the log.
    public var description: String { "TokenSet(expiresAt: \(expiresAt))" }

    public var customMirror: Mirror { Mirror(self, children: ["expiresAt": expiresAt]) }
}

extension TokenSet {
    /// The tokens of a token answer (`/token`, or a badge sign-in), expiring `expires_in`
    /// seconds from now; an answer that is not one throws ``FieldpassClientError/unexpectedResponse(status:)``.
    static func decoding(answer data: Data, status: Int) throws -> TokenSet {
        struct Answer: Decodable {
            var access_token: String
            var refresh_token: String
            var expires_in: Int
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: data) else {
            throw FieldpassClientError.unexpectedResponse(status: status)
        }
        return TokenSet(
            accessToken: answer.access_token, refreshToken: answer.refresh_token,
            expiresAt: Date().addingTimeInterval(TimeInterval(answer.expires_in)))
    }
}
