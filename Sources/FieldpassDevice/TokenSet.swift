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
