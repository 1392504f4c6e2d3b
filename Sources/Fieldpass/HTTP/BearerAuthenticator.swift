import Foundation
import Hummingbird
import Tokens

/// Verifies `Authorization: Bearer <access token>` against our own keys and sets the caller;
/// a token bound to a device's key (`cnf.jkt`) counts only as `Authorization: DPoP <token>`
/// with that key's proof of this request and token (RFC 9449 §7).
///
/// What the store knows counts at once, not when the token expires: a demoted admin loses
/// the admin endpoints, a disabled person or a revoked device or token loses everything.
/// A service account must still be configured (and have its secret) for its token to count.
struct BearerAuthenticator: RouterMiddleware {
    typealias Context = AppRequestContext

    let validator: AccessTokenValidator
    let dpop: DPoPGate

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization] else {
            throw Self.unauthorized("A bearer token is required.")
        }
        let presented: (token: String, asDPoP: Bool)
        if let token = Self.token(in: header) {
            presented = (token, false)
        } else if let token = Self.token(in: header, scheme: "DPoP") {
            presented = (token, true)
        } else {
            throw Self.unauthorized("The Authorization header must be 'Bearer <token>' or 'DPoP <token>'.")
        }
        let validated: AccessTokenValidator.Validated
        do {
            validated = try await validator.validate(presented.token, now: Date())
        } catch let rejection as AccessTokenValidator.Rejection {
            throw Self.unauthorized(Self.explain(rejection), invalidToken: true, asDPoP: presented.asDPoP)
        }
        switch (validated.claims.cnf?.jkt, presented.asDPoP) {
        case (nil, false):
            break
        case (let key?, true):
            try await dpop.proveResource(request, accessToken: presented.token, boundTo: key)
        case (_?, false):
            throw Self.unauthorized(
                "This access token is bound to a key: send it as 'DPoP <token>' with a proof.", invalidToken: true, asDPoP: true)
        case (nil, true):
            throw Self.unauthorized("This access token is not bound to a key: send it as 'Bearer <token>'.", invalidToken: true)
        }
        var context = context
        context.identity = validated.identity
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

    /// The token of a `<scheme> <token>` header (the scheme in any case), or nil.
    static func token(in header: String, scheme: String = "Bearer") -> String? {
        let prefix = scheme.lowercased() + " "
        guard header.count > prefix.count, header.prefix(prefix.count).lowercased() == prefix else { return nil }
        return String(header.dropFirst(prefix.count))
    }

    /// 401 with the RFC 6750 challenge, or RFC 9449's for a bound token (`asDPoP`);
    /// `invalid_token` when a token was sent but is no good.
    static func unauthorized(_ description: String, invalidToken: Bool = false, asDPoP: Bool = false) -> APIError {
        guard invalidToken else {
            return APIError(.unauthorized, AuthErrorCode.unauthorized, description, headers: [.wwwAuthenticate: "Bearer"])
        }
        let challenge = asDPoP ? DPoPGate.challenge(error: "invalid_token") : #"Bearer error="invalid_token""#
        return APIError(.unauthorized, AuthErrorCode.invalidToken, description, headers: [.wwwAuthenticate: challenge])
    }
}
