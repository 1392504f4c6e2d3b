/// Signs JWTs with one key. Header: {"alg": <alg>, "kid": <kid>, "typ": "JWT"}.
public struct JWTSigner: Sendable {
    /// The key every token is signed with.
    public let key: SigningKey
    /// What computes the signature.
    public let backend: SignatureBackend
    /// The encoded header, the same for every token of this key.
    private let headerSegment: String

    /// Creates a signer for `key`; the parsed key is the fast path our tokens use.
    public init(key: SigningKey, backend: SignatureBackend = .parsedKey) {
        self.key = key
        self.backend = backend
        // Written by hand: the kid is a base64url thumbprint, which needs no JSON escaping.
        // Members in sorted order, as libjwt writes them.
        let header = #"{"alg":"\#(key.algorithm.rawValue)","kid":"\#(key.kid)","typ":"JWT"}"#
        self.headerSegment = Crypto.base64URLEncode(header.utf8)
    }

    /// Signs `claims`, which must encode to a JSON object (dates as seconds since 1970).
    /// Returns the compact JWS.
    public func sign(_ claims: some Encodable) throws(TokenError) -> String {
        try sign(claims, headerSegment: headerSegment, type: "JWT")
    }

    /// Signs `claims` as a token of media type `type` (its header's `typ`, e.g.
    /// `offline-permit+jwt`), which a verifier told to expect it tells from any other token.
    public func sign(_ claims: some Encodable, type: String) throws(TokenError) -> String {
        guard type.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
            throw .malformed("typ must be a media type name")
        }
        let header = #"{"alg":"\#(key.algorithm.rawValue)","kid":"\#(key.kid)","typ":"\#(type)"}"#
        return try sign(claims, headerSegment: Crypto.base64URLEncode(header.utf8), type: type)
    }

    private func sign(_ claims: some Encodable, headerSegment: String, type: String) throws(TokenError) -> String {
        let json = try JSON.encode(claims)
        guard json.first == UInt8(ascii: "{") else { throw .malformed("claims must encode to a JSON object") }
        switch backend {
        case .libjwt:
            return try LibJWT.sign(
                claimsJSON: String(decoding: json, as: UTF8.self), kid: key.kid,
                algorithm: key.algorithm, privatePEM: key.privatePEM, type: type
            )
        case .parsedKey:
            let signingInput = "\(headerSegment).\(Crypto.base64URLEncode(json))"
            let signature = try key.parsed.sign(Array(signingInput.utf8))
            return "\(signingInput).\(Crypto.base64URLEncode(signature))"
        }
    }
}
