import FieldpassDomain
import Foundation
import Hummingbird
import Tokens

/// `GET /console/keys`: the signing keys and the environment's service accounts, read-only.
/// Admins only; secrets are never shown, nor are they known here.
struct ConsoleKeysController: Sendable {
    let keys: KeyRotation
    let serviceAccounts: ServiceAccountDirectory
    let pages: ConsolePages

    func addRoutes(to group: RouterGroup<ConsoleRequestContext>) {
        group.get("keys", use: show)
    }

    @Sendable func show(_ request: Request, context: ConsoleRequestContext) async throws -> Response {
        if let refusal = pages.requireAdmin(context) { return refusal }
        let environmentID = context.visit.identity.environmentID
        let view = KeysView(
            chrome: pages.chrome("Keys and service accounts", context, .keys),
            keys: keys.scheduleEntries().map { entry in
                Key(
                    kid: entry.key.kid, algorithm: entry.key.algorithm.rawValue, state: entry.state.rawValue,
                    added: ConsolePages.time(entry.addedAt), signsFrom: ConsolePages.time(entry.signsFrom),
                    publishedUntil: ConsolePages.time(entry.publishedUntil)
                )
            },
            serviceAccounts: serviceAccounts.environments.filter { $0.value == environmentID }.keys.sorted()
        )
        return pages.renderer.page("keys", view)
    }

    struct Key {
        let kid: String
        let algorithm: String
        let state: String
        let added: String?
        let signsFrom: String?
        let publishedUntil: String?
    }

    struct KeysView {
        let chrome: ConsoleChrome
        let keys: [Key]
        let serviceAccounts: [String]
    }
}
