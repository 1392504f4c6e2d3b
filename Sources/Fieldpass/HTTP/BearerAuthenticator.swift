import Foundation
import Hummingbird
import Tokens

/// Verifies `Authorization: Bearer <access token>` against our own keys and sets the caller.
///
/// What the store knows counts at once, not when the token expires: a demoted admin loses
/// the admin endpoints, a disabled person or a revoked device or token loses everything.
/// A service account must still be configured (and have its secret) for its token to count.
struct BearerAuthenticator: RouterMiddleware {
    typealias Context = AppRequestContext

    let validator: AccessTokenValidator

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Self.unauthorized("A bearer token is required.")
        }
        guard let token = Self.token(in: header) else {
            throw Self.unauthorized("The Authorization header must be 'Bearer <token>'.")
        }
        var context = context
        do {
            context.identity = try await validator.validate(token, now: Date()).identity
        } catch let rejection as AccessTokenValidator.Rejection {
            throw Self.unauthorized(Self.explain(rejection), invalidToken: true)
        }
        return try await next(request, context)
    }

    private static func explain(_ rejection: AccessTokenValidator.Rejection) -> String {
        switch rejection {
        case .invalid: "The access token is invalid or expired."
        case .revoked: "The access token has been revoked."
        case .userUnknown: "This user no longer exists."
        case .userDisabled: "This user is disabled."
        case .serviceAccountRemoved: "This service account no longer exists."
        }
    }

    /// The token of a `Bearer <token>` header (the scheme in any case), or nil.
    static func token(in header: String) -> String? {
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else { return nil }
        return String(header.dropFirst(7))
    }

    /// 401 with the RFC 6750 challenge; `invalid_token` when a token was sent but is no good.
    static func unauthorized(_ description: String, invalidToken: Bool = false) -> APIError {
        invalidToken
            ? APIError(
                .unauthorized, AuthErrorCode.invalidToken, description, headers: [.wwwAuthenticate: #"Bearer error="invalid_token""#])
            : APIError(.unauthorized, AuthErrorCode.unauthorized, description, headers: [.wwwAuthenticate: "Bearer"])
    }
}
