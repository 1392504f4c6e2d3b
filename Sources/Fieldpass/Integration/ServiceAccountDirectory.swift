import Tokens

/// The configured service accounts, found by client id, with their secrets' digests.
struct ServiceAccountDirectory: Sendable {
    struct Account: Sendable {
        let id: String
        let environmentID: String
        let secretDigest: [UInt8]
    }

    private let accounts: [String: Account]

    /// Accounts whose secret variable is unset cannot sign in and are left out.
    init(environments: [EnvironmentSettings]) {
        var accounts: [String: Account] = [:]
        for environment in environments {
            for account in environment.serviceAccounts {
                guard let secret = account.secret else { continue }
                accounts[account.id] = Account(id: account.id, environmentID: environment.id, secretDigest: Crypto.sha256(Array(secret.utf8)))
            }
        }
        self.accounts = accounts
    }

    /// Environment id by account id, for token checks.
    var environments: [String: String] { accounts.mapValues(\.environmentID) }

    /// The account if `secret` is its secret. Digests are compared in full, whatever differs first.
    func authenticate(id: String, secret: String) -> Account? {
        guard let account = accounts[id] else { return nil }
        return Crypto.constantTimeEquals(Crypto.sha256(Array(secret.utf8)), account.secretDigest) ? account : nil
    }
}
