import FieldpassDevice

/// A store that holds every save back until the test releases it: a refresh that has its rotated
/// tokens from Fieldpass and is still saving them, as a Keychain write on a busy phone would.
/// Meanwhile the test starts what should wait for that refresh, and sees what it does to the store.
actor HeldSaveStore: TokenStore {
    private var tokens: TokenSet?
    private var installationID: String?
    private var holding = true
    private var saving = false
    private(set) var clears = 0

    init(_ tokens: TokenSet) {
        self.tokens = tokens
    }

    func load() -> TokenSet? { tokens }

    func save(_ tokens: TokenSet) async throws {
        saving = true
        // Polled rather than signalled: the wait ends with the test's cancellation too.
        while holding { try await Task.sleep(for: .milliseconds(20)) }
        self.tokens = tokens
    }

    func clear() {
        tokens = nil
        clears += 1
    }

    /// Waits (up to 20 s) until a save has begun.
    func saveBegun() async throws {
        for _ in 0..<1000 where !saving { try await Task.sleep(for: .milliseconds(20)) }
        guard saving else { throw NoSave() }
    }

    /// Lets the saves go on once the store has been cleared, or after `grace`, whichever comes first.
    func release(whenClearedOrAfter grace: Duration) async throws {
        let deadline = ContinuousClock.now + grace
        while clears == 0 && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        holding = false
    }

    func loadInstallationID() -> String? { installationID }

    func saveInstallationID(_ id: String) { installationID = id }

    struct NoSave: Error {}
}
