/// Keeps the tokens for as long as the process runs: for a command-line tool that onboards
/// once, and for an app's tests. An app that should stay signed in uses the Keychain.
public actor MemoryTokenStore: TokenStore {
    private var tokens: TokenSet?

    public init() {}

    public func load() -> TokenSet? { tokens }

    public func save(_ tokens: TokenSet) { self.tokens = tokens }

    public func clear() { tokens = nil }
}
