import Foundation
import Hummingbird

/// Client authentication of a request (RFC 6749 section 2.3.1), as `/token`, `/revoke` and
/// `/introspect` all need it.
extension ServiceAccountDirectory {
    /// The service account named by HTTP Basic credentials, or 401 `invalid_client` (429
    /// `rate_limited` while its client id has failed too often, see ``authenticate(id:secret:from:)``).
    func authenticate(_ request: Request, context: AppRequestContext) throws -> Account {
        guard let (id, secret) = Self.basicCredentials(request.headers[.authorization]),
            let account = try authenticate(id: id, secret: secret, from: context.clientNetwork)
        else {
            throw APIError(
                .unauthorized, OAuthErrorCode.invalidClient, "Client authentication failed.",
                headers: [.wwwAuthenticate: #"Basic realm="fieldpass""#]
            )
        }
        return account
    }

    /// As ``authenticate(_:)`` when the request carries credentials; `nil` for a public client.
    func authenticateIfPresent(_ request: Request, context: AppRequestContext) throws -> Account? {
        request.headers[.authorization] == nil ? nil : try authenticate(request, context: context)
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
