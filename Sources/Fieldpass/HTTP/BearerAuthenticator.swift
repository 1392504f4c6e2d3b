import Foundation
import Hummingbird
import Tokens

/// Verifies `Authorization: Bearer <access token>` against our own keys and sets the caller.
///
/// A person's role is read from the store on every request, so a demoted admin loses the
/// admin endpoints at once, not when their token expires. A service account must still be
/// configured (and have its secret) for its token to count.
struct BearerAuthenticator: RouterMiddleware {
    typealias Context = AppRequestContext

    let verifier: JWTVerifier
    let directory: any DirectoryStore
    /// Environment id by service account id.
    let serviceAccounts: [String: String]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Self.unauthorized("A bearer token is required.")
        }
        guard header.count > 7, header.prefix(7).lowercased() == "bearer " else {
            throw Self.unauthorized("The Authorization header must be 'Bearer <token>'.")
        }
        let claims: AccessTokenClaims
        do {
            claims = try verifier.verify(String(header.dropFirst(7)), now: Date()).decode(AccessTokenClaims.self)
        } catch {
            throw Self.unauthorized("The access token is invalid or expired.", invalidToken: true)
        }
        var context = context
        context.identity = try await identity(for: claims)
        return try await next(request, context)
    }

    private func identity(for claims: AccessTokenClaims) async throws -> Identity {
        if claims.role == AccessTokenClaims.serviceRole {
            let accountID = String(claims.sub.dropFirst("service:".count))
            guard claims.sub.hasPrefix("service:"), serviceAccounts[accountID] == claims.env else {
                throw Self.unauthorized("This service account no longer exists.", invalidToken: true)
            }
            return Identity(environmentID: claims.env, principal: .service(accountID: accountID))
        }
        guard let user = try await directory.user(id: claims.sub, environmentID: claims.env) else {
            throw Self.unauthorized("This user no longer exists.", invalidToken: true)
        }
        return Identity(environmentID: claims.env, principal: .user(user))
    }

    /// 401 with the RFC 6750 challenge; `invalid_token` when a token was sent but is no good.
    static func unauthorized(_ description: String, invalidToken: Bool = false) -> APIError {
        invalidToken
            ? APIError(.unauthorized, "invalid_token", description, headers: [.wwwAuthenticate: #"Bearer error="invalid_token""#])
            : APIError(.unauthorized, "unauthorized", description, headers: [.wwwAuthenticate: "Bearer"])
    }
}
