/// A company: the email domains that belong to it and its IdP.
///
/// Keys under `environments.<id>`: `email_domains` (required, lower-cased, each in one
/// environment only) and `idp` (see ``IdentityProviderSettings``).
public struct EnvironmentSettings: Sendable, Identifiable {
    /// Environment id, carried in tokens as `env`.
    public var id: String
    /// Lower-cased email domains.
    public var emailDomains: [String]
    /// The environment's OpenID Connect provider.
    public var idp: IdentityProviderSettings

    init(id: String, _ settings: SettingsReader, environment: [String: String]) throws(ConfigurationError) {
        self.id = id
        let prefix = ["environments", id]
        emailDomains = try settings.strings(prefix + ["email_domains"]).map { $0.lowercased() }
        guard !emailDomains.isEmpty else {
            throw ConfigurationError(key: settings.dotted(prefix + ["email_domains"]), "must list at least one domain")
        }
        for domain in emailDomains where !EmailAddress.isValidDomain(domain) {
            throw ConfigurationError(key: settings.dotted(prefix + ["email_domains"]), "'\(domain)' is not a domain name")
        }
        idp = try IdentityProviderSettings(settings, prefix: prefix + ["idp"], environment: environment)
    }
}
