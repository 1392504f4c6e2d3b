import FieldpassDevice

/// A store whose first save fails, as on a full disk, and which works from then on.
actor FailingFirstSaveStore: TokenStore {
    private var tokens: TokenSet?
    private var installationID: String?
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

    func loadInstallationID() -> String? { installationID }

    func saveInstallationID(_ id: String) { installationID = id }

    struct DiskFull: Error {}
}
