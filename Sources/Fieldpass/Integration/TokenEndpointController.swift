import FieldpassDomain
import Foundation
import Hummingbird

/// `POST /token` (RFC 6749 section 3.2): `client_credentials` for backend integrations
/// (HTTP Basic) and `refresh_token` for devices (rotating: each refresh token works once,
/// but for a retry within `tokens.refresh_reuse_grace`).
struct TokenEndpointController: Sendable {
    let directory: any DirectoryStore
    let credentials: any CredentialStore
    let serviceAccounts: ServiceAccountDirectory
    let tokenIssuer: TokenIssuer
    /// A refresh token bound to a key is used only with that key's DPoP proof.
    let dpop: DPoPGate
    /// A shift's refresh past a limit is refused, and ends the shift.
    let shiftLimits: ShiftLimits

    /// The grant types this endpoint serves.
    static let grantTypes: Set = ["client_credentials", "refresh_token"]

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.post("token", use: token)
    }

    struct TokenRequest: Decodable {
        var grantType: String?
        var refreshToken: String?

        enum CodingKeys: String, CodingKey {
            case grantType = "grant_type"
            case refreshToken = "refresh_token"
        }
    }

    struct TokenResponse: ResponseEncodable {
        var accessToken: String
        /// `DPoP` for an access token bound to the device's key (RFC 9449 §5).
        var tokenType = "Bearer"
        var expiresIn: Int
        var refreshToken: String?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case tokenType = "token_type"
            case expiresIn = "expires_in"
            case refreshToken = "refresh_token"
        }
    }

    /// Counts each grant by type and result, then answers it.
    @Sendable func token(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<TokenResponse> {
        var grantType = "unparsed"
        do {
            let form = try await FormBody.decode(TokenRequest.self, from: request, context: context)
            grantType =
                switch form.grantType {
                case let known? where Self.grantTypes.contains(known): known
                case nil: "none"
                default: "other"  // a client's string must not become a label of its own
                }
            let response = try await grant(form, request, context: context)
            FieldpassMetrics.grant(grantType, result: "issued")
            return response
        } catch let error as APIError {
            FieldpassMetrics.grant(grantType, result: error.code)
            throw error
        } catch {
            FieldpassMetrics.grant(grantType, result: "server_error")
            throw error
        }
    }

    private func grant(_ form: TokenRequest, _ request: Request, context: AppRequestContext) async throws -> EditedResponse<TokenResponse> {
        let response: TokenResponse
        switch form.grantType {
        case "client_credentials":
            response = try clientCredentials(request, context: context)
        case "refresh_token":
            // Refresh tokens belong to devices, which are public clients. A caller that
            // authenticates as a client must be checked (RFC 6749 section 6), and no
            // service account holds a device's refresh token: refuse before it is used up.
            if try serviceAccounts.authenticateIfPresent(request, context: context) != nil {
                throw APIError(.badRequest, OAuthErrorCode.invalidGrant, "This refresh token was not issued to this client.")
            }
            response = try await refresh(form.refreshToken, provenBy: try dpop.proof(of: request, path: "/token"))
        case nil:
            throw APIError.invalidRequest("grant_type is required.")
        default:
            throw APIError(.badRequest, OAuthErrorCode.unsupportedGrantType, "Use client_credentials or refresh_token.")
        }
        return EditedResponse(headers: [.cacheControl: "no-store"], response: response)
    }

    private func clientCredentials(_ request: Request, context: AppRequestContext) throws -> TokenResponse {
        let account = try serviceAccounts.authenticate(request, context: context)
        let token = try tokenIssuer.serviceAccessToken(accountID: account.id, environmentID: account.environmentID, now: Date())
        return TokenResponse(accessToken: token, expiresIn: tokenIssuer.accessTokenTTL)
    }

    /// `provenBy`: the request's DPoP proof, checked already but for its replay, which the
    /// rotation records.
    private func refresh(_ refreshToken: String?, provenBy proof: DPoPRules.AcceptedProof?) async throws -> TokenResponse {
        guard let refreshToken, !refreshToken.isEmpty else { throw APIError.invalidRequest("refresh_token is required.") }
        guard refreshToken.utf8.count <= 128 else { throw APIError.invalidRequest("refresh_token is too long.") }
        let now = Date()
        let next = try tokenIssuer.refreshToken()
        let grace = tokenIssuer.refreshReuseGrace
        let rotation = RefreshRotation(
            oldHash: TokenIssuer.hash(refreshToken: refreshToken), newHash: next.hash,
            sealedSuccessor: grace > 0 ? try TokenIssuer.seal(successor: next.token, previous: refreshToken) : nil,
            ttl: tokenIssuer.refreshTokenTTL, grace: grace, proof: proof, shiftLimits: shiftLimits
        )
        let grant: RefreshGrant
        let successor: String
        switch try await dpop.recordingUse({ try await credentials.rotateRefreshToken(rotation, now: now) }) {
        case .rotated(let rotated):
            (grant, successor) = (rotated, next.token)
        case .retried(let retried, let sealed):
            guard let opened = TokenIssuer.openSuccessor(sealed, previous: refreshToken) else { throw Self.invalidGrant }
            (grant, successor) = (retried, opened)
        case .refused:
            throw Self.invalidGrant
        case .proofRequired:
            throw APIError(
                .badRequest, OAuthErrorCode.invalidDPoPProof, "This refresh token is bound to a key: send a DPoP proof made with it.")
        }
        guard let facts = try await directory.accessFacts(userID: grant.userID, environmentID: grant.environmentID) else {
            throw Self.invalidGrant
        }
        let access = try tokenIssuer.deviceAccessToken(
            facts: facts, deviceID: grant.deviceID, deviceKey: grant.dpopThumbprint, shift: grant.shift, now: now)
        return TokenResponse(
            accessToken: access.token, tokenType: access.type, expiresIn: tokenIssuer.accessTokenTTL, refreshToken: successor)
    }

    private static let invalidGrant = APIError(
        .badRequest, OAuthErrorCode.invalidGrant, "The refresh token is invalid, expired, revoked or already used."
    )
}
