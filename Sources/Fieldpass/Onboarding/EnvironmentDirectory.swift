import NIOCore
/// The configured environments, found by email domain, each with its IdP client.
struct EnvironmentDirectory: Sendable {
    struct Entry: Sendable {
        let settings: EnvironmentSettings
        let idp: OIDCProviderClient
    }

    private let byDomain: [String: Entry]
    private let byID: [String: Entry]

    init(environments: [EnvironmentSettings], redirectURI: String) {
        let entries = environments.map { settings in
            Entry(
                settings: settings,
                idp: OIDCProviderClient(
                    settings: settings.idp, redirectURI: redirectURI,
                    http: IdPHTTPClient(
                        environmentID: settings.id, timeout: .seconds(Int64(settings.idp.timeout))
                    ))
            )
        }
        byID = Dictionary(uniqueKeysWithValues: entries.map { ($0.settings.id, $0) })
        byDomain = Dictionary(uniqueKeysWithValues: entries.flatMap { entry in entry.settings.emailDomains.map { ($0, entry) } })
    }

    func entry(forDomain domain: String) -> Entry? { byDomain[domain] }

    func entry(id: String) -> Entry? { byID[id] }
}
