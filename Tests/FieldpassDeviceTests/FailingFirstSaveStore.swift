import FieldpassDevice

/// A store whose first save fails, as on a full disk, and which works from then on.
actor FailingFirstSaveStore: TokenStore {
    private var tokens: TokenSet?
    private var failed = false

    func load() -> TokenSet? { tokens }

    func save(_ tokens: TokenSet) throws {
        guard failed else {
            failed = true
            throw DiskFull()
        }
        self.tokens = tokens
    }

    func clear() { tokens = nil }

    struct DiskFull: Error {}
}
