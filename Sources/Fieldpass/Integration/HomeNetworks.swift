import Synchronization

/// Where each service account last authenticated from: one network per configured account.
///
/// Client ids are not secret, so the per-client-id limit on wrong secrets would let anyone
/// lock a backend out by failing on purpose. A request from the network the account last
/// succeeded from is let past that limit (its wrong secrets still count, and the per-address
/// limits still apply), so the grinding stops for everyone else and the backend keeps working.
final class HomeNetworks: Sendable {
    private let networks = Mutex<[String: String]>([:])

    func contains(_ network: String?, for accountID: String) -> Bool {
        guard let network else { return false }
        return networks.withLock { $0[accountID] == network }
    }

    /// Called only for configured accounts, so the table never outgrows the configuration.
    func remember(_ network: String?, for accountID: String) {
        guard let network else { return }
        networks.withLock { $0[accountID] = network }
    }
}
