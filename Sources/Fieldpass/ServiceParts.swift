import FieldpassDomain
import Prometheus

/// Everything the routes share, made once from the configuration by ``buildApplication``;
/// ``buildRouter(_:)`` only puts routes in front of these.
struct ServiceParts {
    let configuration: FieldpassConfiguration
    let store: any FieldpassStore
    let keys: KeyRotation
    let hub: SessionEventHub
    let readiness: Readiness
    let metrics: PrometheusCollectorRegistry
    /// Which environment an email belongs to, and its IdP.
    let environments: EnvironmentDirectory
    let policy: RealmPolicy
    /// What each environment's IdP sets at sign-in, which the admin API then leaves alone.
    let claimMappings: ClaimMappingDirectory
    /// The admin API's and the console's one way to change people and teams.
    let directoryChanges: DirectoryChanges
    /// The console's templates, parsed once.
    let consoleRenderer: ConsoleRenderer
    let tokenIssuer: TokenIssuer
    /// Signs and checks the offline permits of shared devices.
    let offlinePermits: OfflinePermits
    let serviceAccounts: ServiceAccountDirectory
    let validator: AccessTokenValidator
    let clientAddress: ClientAddress
    /// One limiter per limit; none when limits are off.
    let limiters: [RateLimit: RateLimiter]
    /// Waiting integration long-polls, shared fairly between the environments whose service
    /// accounts can sign in.
    let longPolls: ConcurrencyGate
    /// Where every PIN is hashed and checked, each environment within its share.
    let pinHasher = PinHasher()
    /// Waiting shared-device long-polls, apart from the integration's, shared fairly between
    /// all environments. A waiting poll costs a connection, like an event socket, and no
    /// work: as many may wait as event sockets may be open (`sessions.max_sockets`).
    let deviceLongPolls: DeviceLongPolls

    init(
        configuration: FieldpassConfiguration, store: any FieldpassStore, keys: KeyRotation, hub: SessionEventHub,
        readiness: Readiness, metrics: PrometheusCollectorRegistry
    ) {
        self.configuration = configuration
        self.store = store
        self.keys = keys
        self.hub = hub
        self.readiness = readiness
        self.metrics = metrics
        environments = EnvironmentDirectory(
            environments: configuration.environments, redirectURI: configuration.server.publicURL + "/auth_callback"
        )
        policy = RealmPolicy(roles: configuration.roles, prefixes: configuration.realmPrefixes)
        claimMappings = ClaimMappingDirectory(environments: configuration.environments)
        directoryChanges = DirectoryChanges(store: store, claimMappings: claimMappings)
        consoleRenderer = ConsoleRenderer(base: configuration.server.publicPath)
        offlinePermits = OfflinePermits(
            keys: keys, issuer: configuration.server.publicURL, policy: policy, ttl: configuration.sharedDevices.offlinePermitTTL,
            maxFailedPins: configuration.badges.maxFailedPins)
        tokenIssuer = TokenIssuer(
            keys: keys, issuer: configuration.server.publicURL, settings: configuration.tokens, policy: policy,
            bindsAccessTokens: configuration.dpop.bindAccessTokens)
        limiters = Dictionary(
            uniqueKeysWithValues: RateLimit.allCases.compactMap { limit in
                configuration.limits.limiter(limit).map { (limit, $0) }
            })
        serviceAccounts = ServiceAccountDirectory(environments: configuration.environments, failures: limiters[.clientAuthentication])
        validator = AccessTokenValidator(
            keys: keys, credentials: store, revocations: store.revocations, serviceAccounts: serviceAccounts.environments
        )
        clientAddress = ClientAddress(trustedProxies: configuration.server.trustedProxies, ipv6Prefix: configuration.limits.ipv6Prefix)
        longPolls = ConcurrencyGate(
            capacity: configuration.limits.integrationLongPolls, keys: Set(serviceAccounts.environments.values).count
        )
        deviceLongPolls = DeviceLongPolls(
            capacity: configuration.sessions.socketLimits.total, environments: configuration.environments.count
        )
    }
}
