import Tokens

/// Which environment a SCIM bearer token belongs to.
///
/// Every configured token's digest is compared in full, whatever matches first, so the time
/// an answer takes says nothing about any token.
struct ScimTokenDirectory: Sendable {
    private let digests: [(environment: EnvironmentSettings, digest: [UInt8])]

    init(environments: [EnvironmentSettings]) {
        digests = environments.compactMap { environment in
            environment.scim.map { (environment, Crypto.sha256(Array($0.token.utf8))) }
        }
    }

    /// Whether any environment is provisioned through SCIM.
    var isEmpty: Bool { digests.isEmpty }

    func environment(token: String) -> EnvironmentSettings? {
        let digest = Crypto.sha256(Array(token.utf8))
        var found: EnvironmentSettings?
        for entry in digests where Crypto.constantTimeEquals(digest, entry.digest) {
            found = entry.environment
        }
        return found
    }
}
