import FieldpassDomain
import Foundation
import Hummingbird

/// `POST /revoke` (RFC 7009).
///
/// A device, a public client, revokes its refresh token (which revokes the device, the
/// whole grant: RFC 7009 section 2.1) or an access token (remembered by `jti` until it
/// expires). A service account, authenticated with HTTP Basic, revokes its own access
/// tokens only. Unknown tokens answer 200 too, so the endpoint tells nobody what exists.
struct RevocationController: Sendable {
    let credentials: any CredentialStore
    let serviceAccounts: ServiceAccountDirectory
    let validator: AccessTokenValidator
    /// A refresh token bound to a key is revoked only with that key's DPoP proof, so that a
    /// copy cannot sign its owner's device out.
    let dpop: DPoPGate

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("revoke", use: revoke)
    }

    @Sendable func revoke(_ request: Request, context: AppRequestContext) async throws -> Response {
        let form = try await FormBody.decode(OAuthToken.Form.self, from: request, context: context)
        let client = try serviceAccounts.authenticateIfPresent(request, context: context)
        let token = try OAuthToken.required(form.token)
        let now = Date()
        if let claims = validator.claims(of: token, now: now) {
            if let client, claims.sub != "service:\(client.id)" || claims.env != client.environmentID {
                throw Self.notYours
            }
            try await credentials.revokeAccessToken(jti: claims.jti, expiresAt: Date(timeIntervalSince1970: TimeInterval(claims.exp)))
        } else if let hash = OAuthToken.refreshTokenHash(token) {
            if client != nil {
                // A service account never holds a device's refresh token.
                if try await credentials.liveRefreshToken(hash: hash, now: now) != nil { throw Self.notYours }
            } else {
                let proof = try dpop.proof(of: request, path: "/revoke")
                let outcome = try await dpop.recordingUse { try await credentials.revokeRefreshToken(hash: hash, proof: proof, now: now) }
                if outcome == .proofRequired {
                    throw APIError(
                        .badRequest, OAuthErrorCode.invalidDPoPProof, "This refresh token is bound to a key: prove it to revoke.")
                }
            }
        }
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }

    private static let notYours = APIError(.badRequest, OAuthErrorCode.unauthorizedClient, "This token was not issued to this client.")
}
