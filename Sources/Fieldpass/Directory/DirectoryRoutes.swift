import FieldpassDomain
import HTTPTypes
import Hummingbird

/// The admin API's routes, each with the ``DirectoryAction`` it needs: the caller's role is
/// checked before the request is read, so a caller who may not gets 403 whatever they sent,
/// and no handler checks it again.
struct DirectoryRoutes {
    let group: RouterGroup<IdentifiedRequestContext>

    func on<Output: ResponseGenerator>(
        _ method: HTTPRequest.Method, _ path: RouterPath, _ action: DirectoryAction,
        use handler: @escaping @Sendable (Request, IdentifiedRequestContext) async throws -> Output
    ) {
        group.on(path, method: method) { request, context in
            try context.identity.require(action)
            return try await handler(request, context)
        }
    }
}
