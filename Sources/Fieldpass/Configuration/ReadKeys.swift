import Synchronization

/// The configuration keys a ``SettingsReader`` was asked for: what Fieldpass knows.
final class ReadKeys: Sendable {
    private let keys = Mutex<Set<[String]>>([])

    func insert(_ key: [String]) {
        _ = keys.withLock { $0.insert(key) }
    }

    func contains(_ key: [String]) -> Bool {
        keys.withLock { $0.contains(key) }
    }
}
