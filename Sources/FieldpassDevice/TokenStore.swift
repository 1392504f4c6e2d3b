/// Where the client keeps the device's tokens between launches: the Keychain in an app (see
/// the README's sketch), a private file on a server or in the CLI (``FileTokenStore``).
///
/// The client saves a rotated refresh token before it hands out the access token that came
/// with it, so a crash in between never leaves the device holding a used refresh token only.
public protocol TokenStore: Sendable {
    /// The saved tokens, or `nil` when the device is not signed in.
    func load() async throws -> TokenSet?
    /// Replaces the saved tokens.
    func save(_ tokens: TokenSet) async throws
    /// Forgets them (signed out, or revoked).
    func clear() async throws
}
