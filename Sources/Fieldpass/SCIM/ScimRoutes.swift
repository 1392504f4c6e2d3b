import Hummingbird

/// Every SCIM route at `/scim/v2`, for ``buildRouter(_:)``, which answers the requests they
/// do not take with the returned area's SCIM errors.
enum ScimRoutes {
    static func add(to router: Router<AppRequestContext>, _ parts: ServiceParts) -> UnroutedRequestMiddleware.Area {
        let scim = ScimRouter(
            tokens: ScimTokenDirectory(environments: parts.configuration.environments), limiter: parts.limiters[.scim],
            failures: parts.limiters[.scimAuthentication], clientAddress: parts.clientAddress,
            baseURL: parts.configuration.server.publicURL + "/scim/v2"
        )
        let group = router.group("scim/v2")
        ScimDiscoveryController(router: scim).addRoutes(to: group)
        let users = ScimUsersController(store: parts.store, changes: parts.directoryChanges, router: scim)
        let groups = ScimGroupsController(store: parts.store, changes: parts.directoryChanges, router: scim)
        users.addRoutes(to: group)
        groups.addRoutes(to: group)
        let search = ScimRootSearch(users: users, groups: groups)
        scim.on(group, ".search", .post) { call, _ in try await search.answer(call) }
        return UnroutedRequestMiddleware.Area(prefix: "/scim/v2", errors: scim)
    }
}
