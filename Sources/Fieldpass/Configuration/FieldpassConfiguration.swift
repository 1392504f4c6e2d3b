public import Configuration
public import FieldpassDomain
public import FieldpassStorage
public import Foundation

/// The whole configuration, validated.
///
/// Read from a YAML file, with environment variables overriding any key (`server.port` →
/// `SERVER_PORT`, `environments.dev.idp.issuer` → `ENVIRONMENTS_DEV_IDP_ISSUER`). See each
/// settings type for its keys. Unknown keys in the file stop start-up, so a typo never
/// passes silently.
public struct FieldpassConfiguration: Sendable {
    /// Listening and public URL.
    public var server: ServerSettings
    /// SQLite location.
    public var storage: StorageSettings
    /// Token signing and lifetimes.
    public var tokens: TokenSettings
    /// Onboarding session lifetimes.
    public var sessions: SessionSettings
    /// Users who never sign in.
    public var users: UserSettings
    /// Admin console session lifetimes.
    public var console: ConsoleSettings
    /// DPoP proofs (RFC 9449): how old a proof may be.
    public var dpop: DPoPSettings
    /// Devices a crew shares: how long an enrollment code works.
    public var sharedDevices: SharedDeviceSettings
    /// Badges for signing in on shared devices: lifetime, PIN length, lockout.
    public var badges: BadgeSettings
    /// Rate limits and caps.
    public var limits: LimitSettings
    /// Who may scrape `/metrics`.
    public var metrics: MetricsSettings
    /// Companies and their IdPs.
    public var environments: [EnvironmentSettings]
    /// Realm defaults per role.
    public var roles: RoleSettings

    /// Reads and validates the configuration through `settings`; `environment` supplies client secrets.
    init(_ settings: SettingsReader, environment: [String: String]) throws(ConfigurationError) {
        server = try ServerSettings(settings)
        storage = try StorageSettings(settings, environment: environment)
        tokens = try TokenSettings(settings)
        sessions = try SessionSettings(settings)
        limits = try LimitSettings(settings)
        metrics = try MetricsSettings(settings, environment: environment)
        users = try UserSettings(settings)
        console = try ConsoleSettings(settings)
        dpop = try DPoPSettings(settings)
        sharedDevices = try SharedDeviceSettings(settings)
        badges = try BadgeSettings(settings)
        roles = try RoleSettings(settings)
        let ids = try settings.strings(["environments"])
        var environments: [EnvironmentSettings] = []
        var domainOwners: [String: String] = [:]
        var accountOwners: [String: String] = [:]
        for id in ids {
            guard YAMLConfigFlattener.isValidID(id) else {
                throw ConfigurationError(key: "environments", "'\(id)' is not a valid id")
            }
            let environmentSettings = try EnvironmentSettings(id: id, settings, environment: environment)
            for domain in environmentSettings.emailDomains {
                if let owner = domainOwners[domain] {
                    throw ConfigurationError(
                        key: "environments.\(id).email_domains",
                        "'\(domain)' already belongs to environment '\(owner)'"
                    )
                }
                domainOwners[domain] = id
            }
            // The client id alone names the account at POST /token, so it must be unique.
            for account in environmentSettings.serviceAccounts {
                if let owner = accountOwners[account.id] {
                    throw ConfigurationError(
                        key: "environments.\(id).service_accounts",
                        "'\(account.id)' is already a service account of environment '\(owner)'"
                    )
                }
                accountOwners[account.id] = id
            }
            environments.append(environmentSettings)
        }
        guard !environments.isEmpty else {
            throw ConfigurationError(key: "environments", "must define at least one environment")
        }
        try Self.checkRealmPrefixes(environments)
        try Self.checkScimTokens(environments)
        try Self.checkRoleReach(roles, environments: environments)
        self.environments = environments
        badges.managersIssueIn = Set(environments.filter(\.managersIssueBadges).map(\.id))
    }

    /// Loads the YAML file at `path`, lets `environment` override it, and validates the result.
    public static func load(
        path: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(ConfigurationError) -> FieldpassConfiguration {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigurationError(key: "(file)", "cannot read '\(path)': \(error.localizedDescription)")
        }
        return try parse(yaml: text, environment: environment)
    }

    /// Parses YAML text (see ``load(path:environment:)``). A key of the file that no settings
    /// type read is refused: it is a typo, or it does nothing with these settings.
    public static func parse(yaml: String, environment: [String: String]) throws(ConfigurationError) -> FieldpassConfiguration {
        try parseNotingReads(yaml: yaml, environment: environment).configuration
    }

    /// ``parse(yaml:environment:)``, with every key the settings types read.
    static func parseNotingReads(
        yaml: String, environment: [String: String]
    ) throws(ConfigurationError) -> (configuration: FieldpassConfiguration, read: ReadKeys) {
        let values = try YAMLConfigFlattener().flatten(yaml: yaml)
        let settings = SettingsReader(
            reader: ConfigReader(providers: [
                EnvironmentVariablesProvider(environmentVariables: environment),
                InMemoryProvider(name: "file", values: values),
            ]))
        let configuration = try FieldpassConfiguration(settings, environment: environment)
        let unread = values.keys.map(\.components).filter { !settings.read.contains($0) }
        if let unknown = unread.min(by: { $0.lexicographicallyPrecedes($1) }) {
            throw ConfigurationError(key: unknown.joined(separator: "."), "is not a known configuration key")
        }
        return (configuration, settings.read)
    }

    /// Two environments whose realm paths could be the same path, or one inside the other's,
    /// would share realms at the sync server: the very thing a prefix is there to stop.
    private static func checkRealmPrefixes(_ environments: [EnvironmentSettings]) throws(ConfigurationError) {
        let prefixed = environments.filter { !$0.realmPrefix.isEmpty }
        for environment in prefixed {
            for other in prefixed where other.id != environment.id && RealmPrefixes.reaches(environment.realmPrefix, other.realmPrefix) {
                throw ConfigurationError(
                    key: "environments.\(environment.id).realm_prefix",
                    "'\(environment.realmPrefix)' is, or lies under, environment '\(other.id)''s prefix '\(other.realmPrefix)'"
                )
            }
        }
    }

    /// A SCIM token names its environment: one shared by two would silently mean the last.
    private static func checkScimTokens(_ environments: [EnvironmentSettings]) throws(ConfigurationError) {
        var owners: [String: EnvironmentSettings] = [:]
        for environment in environments {
            guard let scim = environment.scim else { continue }
            if let owner = owners[scim.token] {
                throw ConfigurationError(
                    key: "environments.\(environment.id).scim.token_env",
                    "\(scim.tokenVariable) holds the same SCIM token as environments.\(owner.id).scim.token_env (\(owner.scim?.tokenVariable ?? "")); each environment needs its own"
                )
            }
            owners[scim.token] = environment
        }
    }

    /// An environment without a prefix names the role table's paths as they are; where
    /// another environment has a prefix, none of them may reach it, or every person of the
    /// first would hold realms of the second. Service accounts' `/users/*` counts too.
    private static func checkRoleReach(_ roles: RoleSettings, environments: [EnvironmentSettings]) throws(ConfigurationError) {
        let prefixes = RealmPrefixes(Dictionary(uniqueKeysWithValues: environments.map { ($0.id, $0.realmPrefix) }))
        for plain in environments where plain.realmPrefix.isEmpty {
            if let other = prefixes.reachedEnvironment(RealmPolicy.serviceAccountPath, environmentID: plain.id) {
                throw ConfigurationError(
                    key: "environments.\(other.id).realm_prefix",
                    "'\(other.prefix)' lies under \(RealmPolicy.serviceAccountPath), which environment '\(plain.id)' (without a prefix) hands to its service accounts and admins"
                )
            }
            for role in Role.allCases {
                for rule in roles.rules[role] ?? [] {
                    guard let other = prefixes.reachedEnvironment(rule.reach, environmentID: plain.id) else { continue }
                    throw ConfigurationError(
                        key: "roles.\(role.rawValue)",
                        "'\(rule.template)' reaches environment '\(other.id)''s prefix '\(other.prefix)' in environment '\(plain.id)', which has no prefix"
                    )
                }
            }
        }
    }

    /// Each environment's `realm_prefix`.
    public var realmPrefixes: RealmPrefixes {
        RealmPrefixes(Dictionary(uniqueKeysWithValues: environments.map { ($0.id, $0.realmPrefix) }))
    }

    /// The environment an email domain belongs to.
    public func environment(forDomain domain: String) -> EnvironmentSettings? {
        environments.first { $0.emailDomains.contains(domain) }
    }
}
