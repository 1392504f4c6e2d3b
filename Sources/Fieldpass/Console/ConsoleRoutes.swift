import FieldpassDomain
import Foundation
import Hummingbird

/// The admin console's routes: the sign-in page and its stylesheet in front, everything else
/// behind ``ConsoleSessionMiddleware``; all of them but the stylesheet answer as pages
/// (``ConsoleErrorMiddleware``), and so do the requests they do not take (the returned area).
enum ConsoleRoutes {
    static func add(
        to router: Router<AppRequestContext>, signIn: RouterGroup<AppRequestContext>, _ parts: ServiceParts
    ) -> UnroutedRequestMiddleware.Area {
        let configuration = parts.configuration
        let store = parts.store
        let renderer = parts.consoleRenderer
        ConsoleSignInController(
            store: store, environments: parts.environments, server: configuration.server, sessions: configuration.sessions,
            settings: configuration.console, renderer: renderer
        ).addRoutes(to: signIn.group().add(middleware: ConsoleErrorMiddleware<AppRequestContext>(renderer: renderer)))
        router.get("console/style.css") { _, _ in
            Response(
                status: .ok,
                headers: [
                    .contentType: "text/css; charset=utf-8", .cacheControl: "public, max-age=3600",
                    HTMLPage.noSniff: "nosniff",
                ],
                body: .init(byteBuffer: ConsoleRenderer.stylesheet)
            )
        }
        let group = router.group("console")
            .add(middleware: ConsoleErrorMiddleware<AppRequestContext>(renderer: renderer))
            .add(
                middleware: ConsoleSessionMiddleware(
                    store: store, settings: configuration.console, server: configuration.server, renderer: renderer)
            )
            .group(context: ConsoleRequestContext.self)
        let pages = ConsolePages(renderer: renderer)
        group.post("sign-out") { _, context in
            try await store.endConsoleSession(idHash: context.visit.cookie.idHash)
            return Response(
                status: .seeOther,
                headers: [
                    .location: configuration.server.publicPath + "/console",
                    .setCookie: ConsoleCookie.clearCookie(server: configuration.server),
                ]
            )
        }
        ConsolePeopleController(store: store, pages: pages).addRoutes(to: group)
        ConsolePersonController(
            store: store, changes: parts.directoryChanges, policy: parts.policy, pages: pages, badges: configuration.badges
        ).addRoutes(to: group)
        ConsoleTeamsController(
            store: store, changes: parts.directoryChanges, pages: pages, prefixes: parts.configuration.realmPrefixes
        ).addRoutes(to: group)
        ConsoleBadgesController(
            store: store, changes: parts.directoryChanges, pages: pages, settings: configuration.badges, hasher: parts.pinHasher
        ).addRoutes(to: group)
        ConsoleSharedDevicesController(
            store: store, changes: parts.directoryChanges, pages: pages, settings: configuration.sharedDevices,
            server: configuration.server
        ).addRoutes(to: group)
        ConsoleOnboardingController(store: store, pages: pages).addRoutes(to: group)
        ConsoleAuditController(store: store, pages: pages).addRoutes(to: group)
        ConsoleKeysController(keys: parts.keys, serviceAccounts: parts.serviceAccounts, pages: pages).addRoutes(to: group)
        return UnroutedRequestMiddleware.Area(prefix: "/console", errors: ConsoleErrorMiddleware<AppRequestContext>(renderer: renderer))
    }
}
