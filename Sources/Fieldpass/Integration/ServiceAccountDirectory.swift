import Tokens

/// The configured service accounts, found by client id, with their secrets' digests.
struct ServiceAccountDirectory: Sendable {
    struct Account: Sendable {
        let id: String
        let environmentID: String
        let secretDigest: [UInt8]
    }

    private let accounts: [String: Account]
    /// Failed authentications per client id (`limits.client_authentication`); nil when limits are off.
    private let failures: RateLimiter?
    private let homeNetworks = HomeNetworks()

    /// Accounts whose secret variable is unset cannot sign in and are left out.
    init(environments: [EnvironmentSettings], failures: RateLimiter?) {
        self.failures = failures
        var accounts: [String: Account] = [:]
        for environment in environments {
            for account in environment.serviceAccounts {
                guard let secret = account.secret else { continue }
                accounts[account.id] = Account(
                    id: account.id, environmentID: environment.id, secretDigest: Crypto.sha256(Array(secret.utf8)))
            }
        }
        self.accounts = accounts
    }

    /// The feed cursors of an account (see ``FeedCursor``); `nil` for one that cannot sign in.
    func feedCursor(accountID: String) -> FeedCursor? {
        accounts[accountID].map { FeedCursor(secretDigest: $0.secretDigest, environmentID: $0.environmentID) }
    }

    /// Environment id by account id, for token checks.
    var environments: [String: String] { accounts.mapValues(\.environmentID) }

    /// The account if `secret` is its secret. Digests are compared in full, whatever differs first.
    ///
    /// A wrong secret for a configured account uses up one of that account's tokens; with
    /// none left, the 429 comes before the secret is looked at, so the client id has one
    /// bucket however many addresses try, except from the network the account last
    /// authenticated from (``HomeNetworks``). Unknown ids get no bucket: the caller chooses them.
    func authenticate(id: String, secret: String, from network: String?) throws(APIError) -> Account? {
        guard let account = accounts[id] else { return nil }
        if !homeNetworks.contains(network, for: id) { try failures?.check(id).check() }
        guard Crypto.constantTimeEquals(Crypto.sha256(Array(secret.utf8)), account.secretDigest) else {
            _ = failures?.take(id)
            return nil
        }
        homeNetworks.remember(network, for: id)
        return account
    }
}
