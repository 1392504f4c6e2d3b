public import Foundation

/// A console sign-in on its way through the IdP: what `/auth_callback` needs to finish it.
public struct ConsoleSignIn: Sendable, Equatable {
    /// The hash of the `state` sent to the IdP (``OpaqueToken``'s digest).
    public var stateHash: String
    public var environmentID: String
    /// The email typed on the sign-in page, normalized; the IdP must vouch for it.
    public var email: String
    public var nonce: String
    public var codeVerifier: String
    /// The hash of the cookie that ties the callback to the browser that started it.
    public var browserBinding: String
    public var expiresAt: Date

    public init(
        stateHash: String, environmentID: String, email: String, nonce: String, codeVerifier: String,
        browserBinding: String, expiresAt: Date
    ) {
        self.stateHash = stateHash
        self.environmentID = environmentID
        self.email = email
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.browserBinding = browserBinding
        self.expiresAt = expiresAt
    }
}
