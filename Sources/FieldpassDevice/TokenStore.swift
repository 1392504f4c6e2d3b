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
    /// Forgets them (signed out, or revoked); the installation id stays.
    func clear() async throws

    /// The installation id the client generated for this installation of the app, or `nil`
    /// before it has: Fieldpass knows the device by it, never by its name.
    func loadInstallationID() async throws -> String?
    /// Keeps the installation id for as long as the app is installed, through sign-outs.
    func saveInstallationID(_ id: String) async throws
}
