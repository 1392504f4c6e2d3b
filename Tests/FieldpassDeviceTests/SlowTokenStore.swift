import FieldpassDevice

/// A store as slow as a Keychain read on a locked phone: a read takes what is saved when it
/// starts and hands it back 2 s later. A read that starts while another is under way also waits
/// for the next save first, so it outlasts a whole refresh begun meanwhile, as the slow reads of
/// a busy phone do; reads that all ended at once would end while that refresh still ran. It
/// counts saves and clears, so a test sees how many rotated tokens were kept and whether the
/// device was cut off.
actor SlowTokenStore: TokenStore {
    private var tokens: TokenSet?
    private var installationID: String?
    private var readsUnderWay = 0
    private(set) var saves = 0
    private(set) var clears = 0

    init(_ tokens: TokenSet) {
        self.tokens = tokens
    }

    func load() async throws -> TokenSet? {
        let read = tokens
        let savesBefore = saves
        readsUnderWay += 1
        defer { readsUnderWay -= 1 }
        if readsUnderWay > 1 {
            // Polled rather than signalled: the wait ends with the test's cancellation too.
            while saves == savesBefore && clears == 0 { try await Task.sleep(for: .milliseconds(20)) }
        }
        try await Task.sleep(for: .seconds(2))
        return read
    }

    func save(_ tokens: TokenSet) {
        self.tokens = tokens
        saves += 1
    }

    func clear() {
        tokens = nil
        clears += 1
    }

    func loadInstallationID() -> String? { installationID }

    func saveInstallationID(_ id: String) { installationID = id }
}
