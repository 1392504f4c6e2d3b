import FieldpassDevice

/// The CLI's tokens when no `--token-file` is given: kept for the run only.
actor MemoryTokenStore: TokenStore {
    private var tokens: TokenSet?

    func load() -> TokenSet? { tokens }
    func save(_ tokens: TokenSet) { self.tokens = tokens }
    func clear() { tokens = nil }
}
