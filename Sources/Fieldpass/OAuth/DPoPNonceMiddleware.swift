import FieldpassDomain
import Foundation
import HTTPTypes
import Hummingbird

/// With `dpop.nonce` on, gives a fresh nonce (RFC 9449 §8) in the `DPoP-Nonce` header of
/// every answer to a request that carries a proof, refusals included, and of every
/// long-poll answer, so that a device's next proof has a nonce without another round trip.
struct DPoPNonceMiddleware<Context: RequestContext>: RouterMiddleware {
    let keys: KeyRotation

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.headers[.dpop] != nil || request.uri.path == "/" + EventPollController.path else {
            return try await next(request, context)
        }
        do {
            var response = try await next(request, context)
            response.headers[.dpopNonce] = try keys.published().dpopNonces.issue(now: Date())
            return response
        } catch var error as APIError {
            error.headers[.dpopNonce] = try keys.published().dpopNonces.issue(now: Date())
            throw error
        }
    }
}
