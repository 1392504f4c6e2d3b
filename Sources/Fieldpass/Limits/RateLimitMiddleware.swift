import HTTPTypes
import Hummingbird

/// Answers 429 with `Retry-After` once a client address (an IPv6 client by its network) has
/// used up its bucket for the routes behind this middleware; a refused request reaches no
/// handler, so it stores nothing.
struct RateLimitMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let limiter: RateLimiter
    let clientAddress: ClientAddress

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let client = clientAddress.key(
            peer: context.remoteAddress?.ipAddress, forwardedFor: request.headers[values: .xForwardedFor]
        )
        try limiter.take(client).check()
        var context = context
        context.clientNetwork = client
        return try await next(request, context)
    }
}

extension RateLimitDecision {
    /// Throws the 429 for a refusal.
    func check() throws(APIError) {
        guard case .refused(let limit, let seconds) = self else { return }
        FieldpassMetrics.rateLimited(limit.rawValue)
        throw APIError(
            .tooManyRequests, HTTPErrorCode.rateLimited, "Too many requests \(limit.refusedClient); try again in \(seconds) s.",
            retryAfter: seconds
        )
    }
}

extension HTTPField.Name {
    static let xForwardedFor = Self("X-Forwarded-For")!
}
