import Foundation
public import Hummingbird
import HummingbirdWebSocket
public import Logging
public import Prometheus
import Tokens

/// Builds the whole service from its configuration: the one place where parts are wired.
///
/// Tests build the very same application; `store` lets them choose the database. The
/// store's schema must be migrated already (``StoreFactory/migrate(_:logger:)``).
/// `metrics` is what `GET /metrics` shows: the registry behind the process's swift-metrics
/// factory (`fieldpass serve` bootstraps it). `readiness` is marked serving once the server listens; whoever handles SIGTERM marks it
/// draining.
public func buildApplication(
    configuration: FieldpassConfiguration,
    store opened: OpenedStore? = nil,
    readiness: Readiness = Readiness(),
    metrics: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
    logger: Logger
) async throws -> some ApplicationProtocol {
    let keys = try KeyRotation(settings: configuration.tokens, issuer: configuration.server.publicURL, logger: logger)
    let opened = try opened ?? StoreFactory.open(configuration.storage, realmPrefixes: configuration.realmPrefixes, logger: logger)
    let store = opened.store
    let hub = SessionEventHub(store: store, logger: logger)
    let router = buildRouter(
        configuration: configuration, store: store, keys: keys, hub: hub, readiness: readiness, metrics: metrics
    )
    let sweeper = SessionSweeper(store: store, settings: configuration.sessions, logger: logger)
    let userSweeper = UnconfirmedUserSweeper(store: store, settings: configuration.users, logger: logger)
    return Application(
        router: router,
        server: .http1WebSocketUpgrade(
            webSocketRouter: router,
            configuration: .init(http1: .init(idleTimeout: .seconds(Int64(configuration.server.idleTimeout))))
        ),
        configuration: .init(
            address: .hostname(configuration.server.host, port: configuration.server.port),
            serverName: "Fieldpass"
        ),
        services: opened.services + [keys, hub, sweeper, userSweeper],
        onServerRunning: { channel in
            readiness.markServing()
            logger.info("Fieldpass listening", metadata: [
                "address": "\(channel.localAddress?.description ?? "?")", "public_url": "\(configuration.server.publicURL)",
            ])
        },
        logger: logger
    )
}

/// Every route, each behind its middleware: what `/openapi.json` describes.
func buildRouter(
    configuration: FieldpassConfiguration, store: any FieldpassStore, keys: KeyRotation, hub: SessionEventHub,
    readiness: Readiness, metrics: PrometheusCollectorRegistry
) -> Router<AppRequestContext> {
    let environments = EnvironmentDirectory(
        environments: configuration.environments,
        redirectURI: configuration.server.publicURL + "/auth_callback"
    )
    let policy = RealmPolicy(roles: configuration.roles, prefixes: configuration.realmPrefixes)
    let tokenIssuer = TokenIssuer(
        keys: keys, issuer: configuration.server.publicURL, settings: configuration.tokens, policy: policy
    )
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: AccessLogMiddleware())
    router.add(middleware: JSONErrorMiddleware())
    DiscoveryController(keys: keys).addRoutes(to: router)
    OpenAPIController().addRoutes(to: router)
    ReadinessController(store: store, readiness: readiness).addRoutes(to: router)
    MetricsController(registry: metrics, settings: configuration.metrics).addRoutes(to: router)
    let clientAddress = ClientAddress(trustedProxies: configuration.server.trustedProxies, ipv6Prefix: configuration.limits.ipv6Prefix)
    /// The routes behind the per-address `limit` (no middleware when limits are off).
    func limited(_ limit: RateLimit) -> RouterGroup<AppRequestContext> {
        let group = router.group()
        if let limiter = configuration.limits.limiter(limit) {
            group.add(middleware: RateLimitMiddleware(limiter: limiter, clientAddress: clientAddress))
        }
        return group
    }
    RegisterDeviceController(
        store: store, environments: environments, server: configuration.server, sessions: configuration.sessions,
        emailLimiter: configuration.limits.limiter(.registerDeviceEmail)
    ).addRoutes(to: limited(.registerDevice))
    DeviceConfirmationController(store: store, environments: environments, server: configuration.server)
        .addRoutes(to: limited(.confirmation))
    AuthCallbackController(store: store, environments: environments, tokenIssuer: tokenIssuer)
        .addRoutes(to: limited(.authCallback))
    EventSocketController(store: store, hub: hub, limits: configuration.sessions.socketLimits)
        .addRoutes(to: limited(.events))

    let serviceAccounts = ServiceAccountDirectory(
        environments: configuration.environments, failures: configuration.limits.limiter(.clientAuthentication)
    )
    let validator = AccessTokenValidator(
        keys: keys,
        credentials: store, revocations: store.revocations, serviceAccounts: serviceAccounts.environments
    )
    TokenEndpointController(directory: store, credentials: store, serviceAccounts: serviceAccounts, tokenIssuer: tokenIssuer)
        .addRoutes(to: limited(.token))
    RevocationController(credentials: store, serviceAccounts: serviceAccounts, validator: validator)
        .addRoutes(to: limited(.revoke))
    IntrospectionController(credentials: store, serviceAccounts: serviceAccounts, validator: validator)
        .addRoutes(to: limited(.introspect))
    let authenticator = BearerAuthenticator(validator: validator)
    func authenticated(_ path: RouterPath) -> RouterGroup<IdentifiedRequestContext> {
        router.group(path).add(middleware: authenticator).group(context: IdentifiedRequestContext.self)
    }
    MeController(directory: store, credentials: store, policy: policy).addRoutes(to: authenticated(""))
    let admin = authenticated("admin")
    AdminUsersController(directory: store, policy: policy).addRoutes(to: admin)
    AdminOffboardingController(credentials: store).addRoutes(to: admin)
    AdminTeamsController(directory: store).addRoutes(to: admin)
    // Shared fairly between the environments whose service accounts can sign in.
    let longPolls = ConcurrencyGate(
        capacity: configuration.limits.integrationLongPolls, keys: Set(serviceAccounts.environments.values).count
    )
    IntegrationController(store: store, longPolls: longPolls, realmPrefixes: configuration.realmPrefixes)
        .addRoutes(to: authenticated("integration"))

    return router
}
