/// Where the browser goes when a sign-in ends: the app's own redirect URI (RFC 8252), one of
/// its environment's `app_redirect_uris`, with the app's opaque `state`.
public struct AppReturn: Sendable, Equatable {
    /// The registered URI, exactly as listed.
    public var uri: String
    /// What the app asked to get back (at most 128 printable ASCII characters), or `nil`.
    public var state: String?

    public init(uri: String, state: String?) {
        self.uri = uri
        self.state = state
    }
}
