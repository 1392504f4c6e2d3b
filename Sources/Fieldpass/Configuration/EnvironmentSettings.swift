public import FieldpassDomain

/// A company: the email domains that belong to it and its IdP.
///
/// Keys under `environments.<id>`: `name` (the company's name as people read it, printed on
/// badge cards; default: the id), `email_domains` (required, lower-cased, each in one
/// environment only), `idp` (see ``IdentityProviderSettings``), `bootstrap_admins` (emails
/// that become admins at their first sign-in), `service_accounts` (see
/// ``ServiceAccountSettings``), `confirm_device` (default `true`: the login URL is
/// Fieldpass's confirmation page; `false` sends managed devices straight to the IdP) and
/// `realm_prefix` (default empty: put in front of every realm path of the environment, see
/// ``RealmPrefixes``), `app_redirect_uris` (the apps' redirect URIs a registration may name,
/// matched exactly; see ``AppRedirectURI``), `roles_from_idp` and `teams_from_idp` (see ``ClaimMappings``),
/// `scim` (see ``ScimSettings``), and `badges.managers_issue` (default `false`: only admins and
/// the CLI issue badges and reset their PINs; `true` lets a manager do it for the workers of
/// his teams, and so start a shift as one of them: see `Docs/trust.md`).
public struct EnvironmentSettings: Sendable, Identifiable {
    /// Environment id, carried in tokens as `env`.
    public var id: String
    /// The company's name as people read it.
    public var name: String
    /// Lower-cased email domains.
    public var emailDomains: [String]
    /// The environment's OpenID Connect provider.
    public var idp: IdentityProviderSettings
    /// Lower-cased emails made admin at their first sign-in.
    public var bootstrapAdmins: Set<String>
    /// Backend integrations allowed to use the integration API.
    public var serviceAccounts: [ServiceAccountSettings]
    /// Whether the person confirms the device (and its code) before the IdP.
    public var confirmDevice: Bool
    /// Put in front of every realm path the environment's devices and backends see (`/acme`), or `""`.
    public var realmPrefix: String
    /// Roles and teams set at sign-in from the IdP's claims.
    public var claimMappings: ClaimMappings
    /// SCIM provisioning, when the environment's IdP pushes its people.
    public var scim: ScimSettings?
    /// `dpop: required`: a registration without a DPoP proof is refused, so every device's
    /// refresh token is bound to a key it holds.
    public var dpopRequired: Bool
    /// Where a sign-in may return the browser to the app; empty: only to Fieldpass's own pages.
    public var appRedirectURIs: Set<String>
    /// Whether managers issue badges and reset PINs for their teams' workers, and so know the
    /// temporary PIN a worker's shift can be started with.
    public var managersIssueBadges: Bool

    init(id: String, _ settings: SettingsReader, environment: [String: String]) throws(ConfigurationError) {
        self.id = id
        let prefix = ["environments", id]
        name = try settings.optionalString(prefix + ["name"]) ?? id
        guard !name.isEmpty, name.count <= 80, !name.contains(where: \.isNewline) else {
            throw ConfigurationError(key: settings.dotted(prefix + ["name"]), "must be one line of 1 to 80 characters")
        }
        emailDomains = try settings.strings(prefix + ["email_domains"]).map { $0.lowercased() }
        guard !emailDomains.isEmpty else {
            throw ConfigurationError(key: settings.dotted(prefix + ["email_domains"]), "must list at least one domain")
        }
        for domain in emailDomains where !EmailAddress.isValidDomain(domain) {
            throw ConfigurationError(key: settings.dotted(prefix + ["email_domains"]), "'\(domain)' is not a domain name")
        }
        confirmDevice = try settings.bool(prefix + ["confirm_device"], default: true)
        managersIssueBadges = try settings.bool(prefix + ["badges", "managers_issue"], default: false)
        switch try settings.optionalString(prefix + ["dpop"]) ?? "optional" {
        case "optional": dpopRequired = false
        case "required": dpopRequired = true
        case let other: throw ConfigurationError(key: settings.dotted(prefix + ["dpop"]), "'\(other)' must be optional or required")
        }
        realmPrefix = try settings.optionalString(prefix + ["realm_prefix"]) ?? ""
        // A realm path of its own, so that prefix + path is one too (and never a pattern).
        guard realmPrefix.isEmpty || (RealmPath.isValid(realmPrefix) && realmPrefix.utf8.count <= 64) else {
            throw ConfigurationError(
                key: settings.dotted(prefix + ["realm_prefix"]),
                "'\(realmPrefix)' must be empty or like /acme: segments of letters, digits, '-' or '_', at most 64 characters"
            )
        }
        appRedirectURIs = []
        for (index, uri) in try settings.strings(prefix + ["app_redirect_uris"], default: []).enumerated() {
            if let problem = AppRedirectURI.problem(uri) {
                // By position: an entry with a password in it must not be printed.
                throw ConfigurationError(key: settings.dotted(prefix + ["app_redirect_uris"]), "entry \(index + 1) \(problem)")
            }
            appRedirectURIs.insert(uri)
        }
        idp = try IdentityProviderSettings(settings, prefix: prefix + ["idp"], environment: environment)
        claimMappings = try ClaimMappings(settings, prefix: prefix)
        scim = try ScimSettings(settings, prefix: prefix + ["scim"], environment: environment)
        var admins: Set<String> = []
        for text in try settings.strings(prefix + ["bootstrap_admins"], default: []) {
            guard let email = EmailAddress(text), emailDomains.contains(email.domain) else {
                throw ConfigurationError(
                    key: settings.dotted(prefix + ["bootstrap_admins"]),
                    "'\(text)' is not an email address of this environment's domains"
                )
            }
            admins.insert(email.value)
        }
        bootstrapAdmins = admins
        serviceAccounts = try settings.strings(prefix + ["service_accounts"], default: []).map { accountID throws(ConfigurationError) in
            try ServiceAccountSettings(
                id: accountID, settings, prefix: prefix + ["service_accounts", accountID], environment: environment
            )
        }
    }
}
