/// A public key that verifies one algorithm.
public struct VerificationKey: Sendable {
    /// The only algorithm this key verifies.
    public let algorithm: SigningAlgorithm
    /// RFC 7638 thumbprint, unless built from a JWK that carries its own kid.
    public let kid: String
    /// The public JWK, with kid, use "sig" and alg filled in.
    public let jwk: JWK
    /// SubjectPublicKeyInfo PEM handed to libjwt; computed once rather than per token.
    let publicPEM: [UInt8]
    /// The public key parsed once, for the fast path.
    let parsed: ParsedKey

    /// Builds a key from an identity provider's JWK: RSA (n, e, at least 2048 bits) → RS256,
    /// EC P-256 (x, y, on the curve) → ES256. A present `alg` must match and a present
    /// `use` must be "sig"; other key types, curves or algorithms → `TokenError.unsupportedKey`.
    public init(jwk: JWK) throws(TokenError) {
        if let use = jwk.use, use != "sig" { throw .unsupportedKey("key use \"\(use)\"") }
        let key = try Self.publicKey(from: jwk)
        try self.init(key: key, kid: jwk.kid)
        if let alg = jwk.alg, alg != algorithm.rawValue {
            throw .unsupportedKey("alg \(alg) on a \(jwk.kty) key")
        }
    }

    /// The OpenSSL key for an EC P-256 or RSA JWK.
    private static func publicKey(from jwk: JWK) throws(TokenError) -> PKey {
        switch jwk.kty {
        case "EC":
            let curve = try jwk.required(jwk.crv, "crv")
            guard curve == "P-256" else { throw .unsupportedKey("EC curve \(curve)") }
            return try .p256PublicKey(x: jwk.requiredBytes(jwk.x, "x"), y: jwk.requiredBytes(jwk.y, "y"))
        case "RSA":
            return try .rsaPublicKey(modulus: jwk.requiredBytes(jwk.n, "n"), exponent: jwk.requiredBytes(jwk.e, "e"))
        default:
            throw .unsupportedKey("kty \(jwk.kty)")
        }
    }

    /// The public half of a private key, as a key of its own: what verifies holds no secret.
    init(publicHalfOf privateKey: ParsedKey) throws(TokenError) {
        let jwk = try privateKey.withKey { key throws(TokenError) in try key.publicJWK() }
        try self.init(key: Self.publicKey(from: jwk), kid: nil)
    }

    /// Takes `key` and derives everything from it; `kid` defaults to the RFC 7638 thumbprint.
    init(key: consuming PKey, kid: String?) throws(TokenError) {
        let algorithm = try key.algorithm()
        var jwk = try key.publicJWK()
        let publicPEM = try key.publicPEM()
        let resolvedKid: String
        if let kid {
            resolvedKid = kid
        } else {
            resolvedKid = try jwk.thumbprint()
        }
        jwk.kid = resolvedKid
        jwk.use = "sig"
        jwk.alg = algorithm.rawValue
        self.algorithm = algorithm
        self.kid = resolvedKid
        self.jwk = jwk
        self.publicPEM = publicPEM
        self.parsed = try ParsedKey(key)
    }
}
