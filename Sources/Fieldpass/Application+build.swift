import AsyncHTTPClient
import Foundation
public import Hummingbird
import HummingbirdWebSocket
public import Logging
import Tokens

/// Builds the whole service from its configuration: the one place where parts are wired.
///
/// Tests build the very same application; `store` lets them choose the database.
public func buildApplication(
    configuration: FieldpassConfiguration,
    store: (any FieldpassStore)? = nil,
    logger: Logger
) async throws -> some ApplicationProtocol {
    let keyRing: KeyRing
    do {
        keyRing = try KeyRing.load(directory: URL(fileURLWithPath: configuration.tokens.keysDirectory))
    } catch {
        throw ConfigurationError(
            key: "tokens.keys_dir",
            "\(error); create a key with `fieldpass keys generate --config <file>`"
        )
    }
    let store = try store ?? SQLiteStore(path: configuration.storage.sqlitePath)
    let hub = SessionEventHub(store: store, logger: logger)
    let environments = EnvironmentDirectory(
        environments: configuration.environments,
        redirectURI: configuration.server.publicURL + "/auth_callback",
        httpClient: HTTPClient.shared
    )
    let router = Router(context: AppRequestContext.self)
    router.add(middleware: JSONErrorMiddleware())
    try DiscoveryController(keyRing: keyRing).addRoutes(to: router)
    RegisterDeviceController(
        store: store, environments: environments, server: configuration.server, sessions: configuration.sessions
    ).addRoutes(to: router)
    AuthCallbackController(
        store: store, environments: environments,
        tokenIssuer: TokenIssuer(keyRing: keyRing, issuer: configuration.server.publicURL, settings: configuration.tokens),
        hub: hub
    ).addRoutes(to: router)
    EventSocketController(store: store, hub: hub).addRoutes(to: router)

    let sweeper = SessionSweeper(store: store, hub: hub, settings: configuration.sessions, logger: logger)
    return Application(
        router: router,
        server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: .init(
            address: .hostname(configuration.server.host, port: configuration.server.port),
            serverName: "Fieldpass"
        ),
        services: [hub, sweeper],
        logger: logger
    )
}
