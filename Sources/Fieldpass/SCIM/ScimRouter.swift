import FieldpassDomain
import Foundation
import Hummingbird
import Logging

/// Puts SCIM handlers behind what every SCIM route needs: the bearer token (which names the
/// environment), the per-token rate limit, and errors in SCIM's shape whatever goes wrong.
struct ScimRouter: Sendable {
    let tokens: ScimTokenDirectory
    /// Requests per token; `nil` when limits are off.
    let limiter: RateLimiter?
    /// Requests with a wrong token, per client address; `nil` when limits are off.
    let failures: RateLimiter?
    let clientAddress: ClientAddress
    /// `{public_url}/scim/v2`.
    let baseURL: String

    typealias Handler = @Sendable (ScimCall, AppRequestContext) async throws -> Response

    func on(_ group: RouterGroup<AppRequestContext>, _ path: RouterPath, _ method: HTTPRequest.Method, use handler: @escaping Handler) {
        group.on(path, method: method) { request, context in await answer(request, context, handler) }
    }

    /// `handler`'s answer, behind the token and the limits; any error as SCIM's.
    func answer(
        _ request: Request, _ context: AppRequestContext, _ handler: (ScimCall, AppRequestContext) async throws -> Response
    ) async -> Response {
        do {
            return try await handler(try open(request, context), context)
        } catch {
            return Self.response(for: error, logger: context.logger)
        }
    }

    private func open(_ request: Request, _ context: AppRequestContext) throws -> ScimCall {
        let client = clientAddress.key(peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor])
        // An address that sent too many wrong tokens is refused before its token is compared.
        try refuseIfLimited(failures?.check(client), .scimAuthentication)
        guard let header = request.headers[.authorization], header.count > 7, header.prefix(7).lowercased() == "bearer ",
            let environment = tokens.environment(token: String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        else {
            _ = failures?.take(client)
            throw ScimError(status: 401, "A valid SCIM bearer token is required.")
        }
        try refuseIfLimited(limiter?.take(environment.id), .scim)
        return ScimCall(environment: environment, request: request, baseURL: baseURL)
    }

    private func refuseIfLimited(_ decision: RateLimitDecision?, _ limit: RateLimit) throws {
        guard case .refused(_, let seconds)? = decision else { return }
        FieldpassMetrics.rateLimited(limit.rawValue)
        throw RateLimited(limit: limit, seconds: seconds)
    }

    private struct RateLimited: Error {
        let limit: RateLimit
        let seconds: Int
    }

    static func response(for error: any Error, logger: Logger) -> Response {
        switch error {
        case let error as ScimError:
            return ScimResponse.error(error)
        case let limited as RateLimited:
            return ScimResponse.error(
                ScimError(status: 429, "Too many requests \(limited.limit.refusedClient); try again in \(limited.seconds) s."),
                retryAfter: limited.seconds
            )
        case let error as APIError:  // a method the path is not routed for (``UnroutedRequestMiddleware``)
            var response = ScimResponse.error(ScimError(status: Int(error.status.code), error.description))
            response.headers.append(contentsOf: error.headers)
            return response
        case let error as HTTPError where error.status == .notFound:  // a path no route has
            return ScimResponse.error(.notFound("No such SCIM endpoint."))
        case DirectoryError.unknownUser:
            return ScimResponse.error(.notFound("No such user."))
        case DirectoryError.unknownTeam:
            return ScimResponse.error(.notFound("No such group."))
        case DirectoryError.teamNameTaken:
            return ScimResponse.error(.uniqueness("A group with this displayName exists already."))
        default:
            if let unavailable = error as? StoreUnavailable {
                logger.warning("Store unavailable", metadata: ["reason": "\(unavailable.reason)"])
                return ScimResponse.error(ScimError(status: 503, "The database cannot be reached. Try again shortly."), retryAfter: 5)
            }
            logger.error("Unhandled SCIM error", metadata: ["error.type": "\(String(reflecting: type(of: error)))"])
            return ScimResponse.error(ScimError(status: 500, "The server could not complete the request."))
        }
    }
}

/// SCIM's answer to a request under `/scim/v2` that no route takes (``UnroutedRequestMiddleware``):
/// the token first, as on every SCIM route, then 404 or 405 as a SCIM error.
extension ScimRouter: RouterMiddleware {
    func handle(
        _ request: Request, context: AppRequestContext, next: (Request, AppRequestContext) async throws -> Response
    ) async throws -> Response {
        await answer(request, context) { _, context in try await next(request, context) }
    }
}
