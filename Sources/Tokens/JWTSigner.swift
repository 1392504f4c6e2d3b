/// Signs JWTs with one key via libjwt. Header: {"alg": <alg>, "typ": "JWT", "kid": <kid>}.
public struct JWTSigner: Sendable {
    /// The key every token is signed with.
    public let key: SigningKey

    /// Creates a signer for `key`.
    public init(key: SigningKey) {
        self.key = key
    }

    /// Signs `claims`, which must encode to a JSON object (dates as seconds since 1970).
    /// Returns the compact JWS.
    public func sign(_ claims: some Encodable) throws(TokenError) -> String {
        let json = try JSON.encode(claims)
        guard json.first == UInt8(ascii: "{") else { throw .malformed("claims must encode to a JSON object") }
        return try LibJWT.sign(
            claimsJSON: String(decoding: json, as: UTF8.self),
            kid: key.kid,
            algorithm: key.algorithm,
            privatePEM: key.privatePEM
        )
    }
}
