import Foundation
import Hummingbird

/// `POST /token` (RFC 6749 section 3.2): `client_credentials` for backend integrations
/// (HTTP Basic) and `refresh_token` for devices (rotating: each refresh token works once).
struct TokenEndpointController: Sendable {
    let directory: any DirectoryStore
    let serviceAccounts: ServiceAccountDirectory
    let tokenIssuer: TokenIssuer

    func addRoutes(to router: Router<AppRequestContext>) {
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

    @Sendable func token(_ request: Request, context: AppRequestContext) async throws -> EditedResponse<TokenResponse> {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            throw APIError.invalidRequest("The body must be application/x-www-form-urlencoded.")
        }
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        guard let form = try? URLEncodedFormDecoder().decode(TokenRequest.self, from: String(buffer: body)) else {
            throw APIError.invalidRequest("The form is malformed.")
        }
        let response: TokenResponse
        switch form.grantType {
        case "client_credentials":
            response = try clientCredentials(request)
        case "refresh_token":
            // Refresh tokens belong to devices, which are public clients. A caller that
            // authenticates as a client must be checked (RFC 6749 section 6), and no
            // service account holds a device's refresh token: refuse before it is used up.
            if request.headers[.authorization] != nil {
                _ = try authenticateClient(request)
                throw APIError(.badRequest, "invalid_grant", "This refresh token was not issued to this client.")
            }
            response = try await refresh(form.refreshToken)
        case nil:
            throw APIError.invalidRequest("grant_type is required.")
        default:
            throw APIError(.badRequest, "unsupported_grant_type", "Use client_credentials or refresh_token.")
        }
        return EditedResponse(headers: [.cacheControl: "no-store"], response: response)
    }

    private func clientCredentials(_ request: Request) throws -> TokenResponse {
        let account = try authenticateClient(request)
        let token = try tokenIssuer.serviceAccessToken(accountID: account.id, environmentID: account.environmentID, now: Date())
        return TokenResponse(accessToken: token, expiresIn: tokenIssuer.accessTokenTTL)
    }

    private func refresh(_ refreshToken: String?) async throws -> TokenResponse {
        guard let refreshToken, !refreshToken.isEmpty, refreshToken.utf8.count <= 128 else {
            throw APIError.invalidRequest("refresh_token is required.")
        }
        let now = Date()
        let next = try tokenIssuer.refreshToken(now: now)
        guard let grant = try await directory.rotateRefreshToken(
            oldHash: TokenIssuer.hash(refreshToken: refreshToken), newHash: next.hash, newExpiry: next.expiresAt, now: now
        ), let facts = try await directory.accessFacts(userID: grant.userID, environmentID: grant.environmentID)
        else {
            throw APIError(.badRequest, "invalid_grant", "The refresh token is invalid, expired or already used.")
        }
        let accessToken = try tokenIssuer.deviceAccessToken(facts: facts, deviceID: grant.deviceID, now: now)
        return TokenResponse(accessToken: accessToken, expiresIn: tokenIssuer.accessTokenTTL, refreshToken: next.token)
    }

    /// The service account named by HTTP Basic credentials, or 401 `invalid_client`.
    private func authenticateClient(_ request: Request) throws -> ServiceAccountDirectory.Account {
        guard let (id, secret) = Self.basicCredentials(request.headers[.authorization]),
            let account = serviceAccounts.authenticate(id: id, secret: secret)
        else {
            throw APIError(
                .unauthorized, "invalid_client", "Client authentication failed.",
                headers: [.wwwAuthenticate: #"Basic realm="fieldpass""#]
            )
        }
        return account
    }

    /// `Basic base64(urlencode(id):urlencode(secret))` (RFC 6749 2.3.1).
    static func basicCredentials(_ header: String?) -> (String, String)? {
        guard let header, header.count > 6, header.prefix(6).lowercased() == "basic ",
            let data = Data(base64Encoded: String(header.dropFirst(6))),
            let decoded = String(data: data, encoding: .utf8),
            let colon = decoded.firstIndex(of: ":"),
            let id = String(decoded[..<colon]).removingPercentEncoding,
            let secret = String(decoded[decoded.index(after: colon)...]).removingPercentEncoding
        else { return nil }
        return (id, secret)
    }
}
