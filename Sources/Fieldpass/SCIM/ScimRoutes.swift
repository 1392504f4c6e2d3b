import Hummingbird

/// Every SCIM route at `/scim/v2`, for ``buildRouter(_:)``.
enum ScimRoutes {
    static func add(to router: Router<AppRequestContext>, _ parts: ServiceParts) {
        let scim = ScimRouter(
            tokens: ScimTokenDirectory(environments: parts.configuration.environments), limiter: parts.limiters[.scim],
            baseURL: parts.configuration.server.publicURL + "/scim/v2"
        )
        let group = router.group("scim/v2")
        ScimDiscoveryController(router: scim).addRoutes(to: group)
        ScimUsersController(store: parts.store, router: scim).addRoutes(to: group)
        ScimGroupsController(store: parts.store, router: scim, claimMappings: parts.claimMappings).addRoutes(to: group)
        scim.notFound(group)
    }
}
