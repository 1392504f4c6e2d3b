import Hummingbird

/// Answers the requests no route takes: 405 with `Allow` (RFC 9110 §15.5.6) when the path is
/// routed for other methods, 404 when it is not; under a part of the service with errors of
/// its own (SCIM's, the console's pages) in that part's shape, elsewhere as the API's JSON.
///
/// ``buildRouter(_:)`` adds it after every route, with their table. Hummingbird gives each
/// route the middleware added before it, and its not-found responder all of them: only
/// requests that no route took pass through here, and no route is missing from the table.
struct UnroutedRequestMiddleware: RouterMiddleware {
    /// The paths under `prefix` (`/scim/v2`), whose errors `errors` shapes.
    struct Area: Sendable {
        let prefix: String
        let errors: any RouterMiddleware<AppRequestContext>

        func holds(_ path: String) -> Bool {
            path == prefix || path.hasPrefix(prefix + "/")
        }
    }

    let routes: RouteTable
    let areas: [Area]

    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        func refuse(_ request: Request, _ context: AppRequestContext) async throws -> Response {
            // Hummingbird's not-found responder: 404, as before.
            guard let route = routes.route(at: request.uri.path) else { return try await next(request, context) }
            context.coreContext.endpointPath.value = route.path
            throw APIError.methodNotAllowed(route.methods)
        }
        guard let area = areas.first(where: { $0.holds(request.uri.path) }) else { return try await refuse(request, context) }
        return try await area.errors.handle(request, context: context, next: refuse)
    }
}
