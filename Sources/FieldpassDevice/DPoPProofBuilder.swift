import Crypto
public import Foundation

/// Makes DPoP proofs (RFC 9449 §4.2) with a device's key: one compact JWS per request, whose
/// header carries the public key (`typ` `dpop+jwt`, `alg`, `jwk`) and whose claims name the
/// request (`htm`, `htu`), the time (`iat`), a random `jti`, and when given the access token's
/// hash (`ath`) and the server's nonce (`nonce`).
///
/// ``FieldpassClient`` proves its own calls with it; an app proves its calls to a resource that
/// takes a bound access token (`Authorization: DPoP <token>`) the same way.
public struct DPoPProofBuilder: Sendable {
    public let key: any DPoPKey

    public init(key: any DPoPKey) {
        self.key = key
    }

    /// A proof for a `method` request to `url` (its query and fragment left out, as `htu` is
    /// compared without them), made at `now`.
    public func proof(
        method: String, url: URL, accessToken: String? = nil, nonce: String? = nil, now: Date = Date()
    )
        async throws -> String
    {
        guard var target = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw URLError(.badURL)
        }
        target.query = nil
        target.fragment = nil
        guard let htu = target.string else { throw URLError(.badURL) }
        let header: [String: Any] = ["typ": "dpop+jwt", "alg": key.algorithm, "jwk": key.publicJWK]
        var claims: [String: Any] = [
            // 128 random bits: RFC 9449 asks for enough that two proofs never share one.
            "jti": Data.random(count: 16).base64URLEncoded, "htm": method, "htu": htu, "iat": Int(now.timeIntervalSince1970),
        ]
        // Left out when absent, never sent as null.
        if let accessToken { claims["ath"] = Data(SHA256.hash(data: Data(accessToken.utf8))).base64URLEncoded }
        if let nonce { claims["nonce"] = nonce }
        let signingInput = try Self.encoded(header) + "." + Self.encoded(claims)
        let signature = try await key.sign(Data(signingInput.utf8))
        return signingInput + "." + signature.base64URLEncoded
    }

    /// A JOSE part: compact JSON, base64url.
    private static func encoded(_ object: [String: Any]) throws -> String {
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]).base64URLEncoded
    }
}
