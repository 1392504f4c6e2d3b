public import FieldpassStorage
import FieldpassDomain
import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import NIOCore
public import Logging
public import Prometheus

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
    let parts = ServiceParts(configuration: configuration, store: store, keys: keys, hub: hub, readiness: readiness, metrics: metrics)
    let router = buildRouter(parts)
    let sweeper = SessionSweeper(
        store: store, settings: configuration.sessions, shiftLimits: configuration.sharedDevices.shiftLimits, logger: logger)
    let userSweeper = UnconfirmedUserSweeper(store: store, settings: configuration.users, logger: logger)
    return Application(
        router: router,
        server: guardedServer(router: router, idleTimeout: configuration.server.idleTimeout),
        configuration: .init(
            address: .hostname(configuration.server.host, port: configuration.server.port),
            serverName: "Fieldpass"
        ),
        services: opened.services + opened.serverServices + [keys, hub, sweeper, userSweeper],
        onServerRunning: { channel in
            readiness.markServing()
            logger.info(
                "Fieldpass listening",
                metadata: [
                    "address": "\(channel.localAddress?.description ?? "?")", "public_url": "\(configuration.server.publicURL)",
                ])
        },
        logger: logger
    )
}

/// Every route, each behind its middleware: what `/openapi.json` describes; then the answer
/// to a request none of them takes (``UnroutedRequestMiddleware``).
func buildRouter(_ parts: ServiceParts) -> Router<AppRequestContext> {
    let configuration = parts.configuration
    let store = parts.store
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: AccessLogMiddleware())
    if configuration.dpop.nonce { router.add(middleware: DPoPNonceMiddleware(keys: parts.keys)) }
    router.add(middleware: JSONErrorMiddleware())
    DiscoveryController(keys: parts.keys).addRoutes(to: router)
    OpenAPIController().addRoutes(to: router)
    ReadinessController(store: store, readiness: parts.readiness).addRoutes(to: router)
    MetricsController(registry: parts.metrics, settings: configuration.metrics).addRoutes(to: router)
    /// The routes behind the per-address `limit` (no middleware when limits are off).
    func limited(_ limit: RateLimit) -> RouterGroup<AppRequestContext> {
        let group = router.group()
        if let limiter = parts.limiters[limit] {
            group.add(middleware: RateLimitMiddleware(limiter: limiter, clientAddress: parts.clientAddress))
        }
        return group
    }
    let dpop = DPoPGate(store: store, settings: configuration.dpop, publicURL: configuration.server.publicURL, keys: parts.keys)
    RegisterDeviceController(
        store: store, environments: parts.environments, server: configuration.server, sessions: configuration.sessions,
        emailLimiter: parts.limiters[.registerDeviceEmail], dpop: dpop
    ).addRoutes(to: limited(.registerDevice))
    DeviceConfirmationController(store: store, environments: parts.environments, server: configuration.server)
        .addRoutes(to: limited(.confirmation))
    // An enrollment code is tried as a sign-in is started: under the same per-address limit.
    SharedDeviceEnrollController(changes: parts.directoryChanges, dpop: dpop).addRoutes(to: limited(.registerDevice))
    SharedDeviceShiftController(
        store: store, changes: parts.directoryChanges, dpop: dpop, longPoll: LongPoll(store: store, readiness: parts.readiness),
        places: parts.deviceLongPolls, signal: store.lifecycleFeed,
        badgeSignIn: BadgeSignIn(
            store: store, changes: parts.directoryChanges, dpop: dpop, tokenIssuer: parts.tokenIssuer, settings: configuration.badges,
            hasher: parts.pinHasher, offlinePermits: parts.offlinePermits,
            badgeLimiter: parts.limiters[.badgeSignIn], deviceLimiter: parts.limiters[.sharedDeviceSignIn])
    ).addRoutes(signIns: limited(.registerDevice), deviceRoutes: limited(.events))
    SharedDeviceOfflineController(
        store: store, changes: parts.directoryChanges, dpop: dpop, tokenIssuer: parts.tokenIssuer, permits: parts.offlinePermits
    ).addRoutes(to: limited(.events))
    let consoleSignIns = ConsoleSignInCallback(
        store: store, changes: parts.directoryChanges, environments: parts.environments, server: configuration.server,
        settings: configuration.console,
        renderer: parts.consoleRenderer
    )
    AuthCallbackController(store: store, environments: parts.environments, tokenIssuer: parts.tokenIssuer, console: consoleSignIns)
        .addRoutes(to: limited(.authCallback))
    EventSocketController(store: store, hub: parts.hub, limits: configuration.sessions.socketLimits, readiness: parts.readiness)
        .addRoutes(to: limited(.events))
    EventPollController(store: store, hub: parts.hub, limits: configuration.sessions.socketLimits, readiness: parts.readiness)
        .addRoutes(to: limited(.events))

    TokenEndpointController(
        directory: store, credentials: store, serviceAccounts: parts.serviceAccounts, tokenIssuer: parts.tokenIssuer, dpop: dpop,
        shiftLimits: configuration.sharedDevices.shiftLimits
    ).addRoutes(to: limited(.token))
    RevocationController(credentials: store, serviceAccounts: parts.serviceAccounts, validator: parts.validator, dpop: dpop)
        .addRoutes(to: limited(.revoke))
    IntrospectionController(credentials: store, serviceAccounts: parts.serviceAccounts, validator: parts.validator)
        .addRoutes(to: limited(.introspect))
    let authenticator = BearerAuthenticator(validator: parts.validator, dpop: dpop)
    func authenticated(_ path: RouterPath) -> RouterGroup<IdentifiedRequestContext> {
        router.group(path).add(middleware: authenticator).group(context: IdentifiedRequestContext.self)
    }
    MeController(directory: store, credentials: store, changes: parts.directoryChanges, policy: parts.policy).addRoutes(
        to: authenticated(""))
    let admin = DirectoryRoutes(group: authenticated("admin"))
    AdminUsersController(directory: store, policy: parts.policy, changes: parts.directoryChanges).addRoutes(to: admin)
    AdminOffboardingController(credentials: store, changes: parts.directoryChanges).addRoutes(to: admin)
    AdminTeamsController(directory: store, changes: parts.directoryChanges).addRoutes(to: admin)
    AdminSharedDevicesController(store: store, changes: parts.directoryChanges, settings: configuration.sharedDevices)
        .addRoutes(to: admin)
    AdminBadgesController(changes: parts.directoryChanges, settings: configuration.badges, hasher: parts.pinHasher).addRoutes(to: admin)
    IntegrationController(
        store: store, longPolls: parts.longPolls, realmPrefixes: configuration.realmPrefixes, readiness: parts.readiness,
        serviceAccounts: parts.serviceAccounts
    )
    .addRoutes(to: authenticated("integration"))
    let scim = ScimRoutes.add(to: router, parts)
    let console = ConsoleRoutes.add(to: router, signIn: limited(.confirmation), parts)
    // Last, after every route: 405 or 404 for what none of them takes.
    router.add(middleware: UnroutedRequestMiddleware(routes: RouteTable(router.routes), areas: [scim, console]))
    return router
}

/// HTTP/1.1 with the event socket's upgrade, every connection given `idleTimeout` seconds to
/// send its first request and as long between requests (``GuardedServerChannel``).
private func guardedServer(router: Router<AppRequestContext>, idleTimeout: Int) -> HTTPServerBuilder {
    let webSocketResponder = router.buildResponder()
    let timeout = TimeAmount.seconds(Int64(idleTimeout))
    return HTTPServerBuilder { responder in
        GuardedServerChannel(
            inner: HTTP1WebSocketUpgradeChannel(
                responder: responder, webSocketResponder: webSocketResponder, configuration: .init(http1: .init(idleTimeout: timeout))
            ),
            firstRequestDeadline: timeout
        )
    }
}
