/// Keeps the tokens (and the installation id) for as long as the process runs: for a
/// command-line tool that onboards once, and for an app's tests; each process is a new device. An app that should stay signed in uses the Keychain.
public actor MemoryTokenStore: TokenStore {
    private var tokens: TokenSet?
    private var installationID: String?

    public init() {}

    public func load() -> TokenSet? { tokens }

    public func save(_ tokens: TokenSet) { self.tokens = tokens }

    public func clear() { tokens = nil }

    public func loadInstallationID() -> String? { installationID }

    public func saveInstallationID(_ id: String) { installationID = id }
}
