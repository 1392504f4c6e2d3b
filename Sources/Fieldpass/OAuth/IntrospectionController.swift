import FieldpassDomain
import Foundation
import Hummingbird

/// `POST /introspect` (RFC 7662), for service accounts (HTTP Basic): a sync server that
/// wants an online check learns whether a token counts right now, not only whether its
/// signature holds. A token of another environment is inactive for the caller.
struct IntrospectionController: Sendable {
    let credentials: any CredentialStore
    let serviceAccounts: ServiceAccountDirectory
    let validator: AccessTokenValidator

    /// The RFC 7662 members, plus ours; absent members are left out.
    struct Introspection: ResponseEncodable {
        var active: Bool
        var tokenType: String?
        var sub: String?
        var aud: String?
        var iss: String?
        var exp: Int?
        var iat: Int?
        var nbf: Int?
        var jti: String?
        var clientID: String?
        var env: String?
        var role: String?
        var email: String?
        var deviceID: String?
        var shiftID: String?
        var realms: [String: RealmAccess]?
        /// RFC 9449 §6.2: the key a bound token needs (`jkt`).
        var cnf: [String: String]?

        static let inactive = Introspection(active: false)

        enum CodingKeys: String, CodingKey {
            case active, sub, aud, iss, exp, iat, nbf, jti, env, role, email, realms, cnf
            case tokenType = "token_type"
            case clientID = "client_id"
            case deviceID = "device_id"
            case shiftID = "shift_id"
        }
    }

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("introspect", use: introspect)
    }

    @Sendable func introspect(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<Introspection> {
        let form = try await FormBody.decode(OAuthToken.Form.self, from: request, context: context)
        let client = try serviceAccounts.authenticate(request, context: context)
        let token = try OAuthToken.required(form.token)
        let answer = try await introspect(token, environmentID: client.environmentID)
        return EditedResponse(headers: [.cacheControl: "no-store"], response: answer)
    }

    private func introspect(_ token: String, environmentID: String) async throws -> Introspection {
        let now = Date()
        do {
            let validated = try await validator.validate(token, now: now)
            guard validated.claims.env == environmentID else { return .inactive }
            let claims = validated.claims
            let isService = claims.role == AccessTokenClaims.serviceRole
            return Introspection(
                active: true, tokenType: claims.tokenType, sub: claims.sub, aud: claims.aud, iss: claims.iss, exp: claims.exp,
                iat: claims.iat, nbf: claims.nbf, jti: claims.jti,
                clientID: isService ? String(claims.sub.dropFirst("service:".count)) : nil,
                env: claims.env, role: claims.role, email: claims.email, deviceID: claims.deviceID, shiftID: claims.shiftID,
                realms: claims.realms,
                cnf: claims.cnf.map { ["jkt": $0.jkt] }
            )
        } catch AccessTokenValidator.Rejection.invalid {
            // Not one of our access tokens (or no longer valid as one): perhaps a refresh token.
        } catch is AccessTokenValidator.Rejection {
            return .inactive
        }
        guard let hash = OAuthToken.refreshTokenHash(token),
            let live = try await credentials.liveRefreshToken(hash: hash, now: now),
            live.grant.environmentID == environmentID
        else { return .inactive }
        return Introspection(
            active: true, tokenType: "refresh_token", sub: live.grant.userID,
            exp: Int(live.expiresAt.timeIntervalSince1970), iat: Int(live.issuedAt.timeIntervalSince1970),
            env: live.grant.environmentID, deviceID: live.grant.shift?.sharedDeviceID ?? live.grant.deviceID, shiftID: live.grant.shift?.id,
            cnf: live.grant.dpopThumbprint.map { ["jkt": $0] }
        )
    }
}
