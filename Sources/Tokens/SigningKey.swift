/// A private signing key, loaded from or saved as PEM.
public struct SigningKey: Sendable {
    /// ES256 for EC P-256 keys, RS256 for RSA keys of at least 2048 bits.
    public let algorithm: SigningAlgorithm
    /// RFC 7638 thumbprint of the public key.
    public let kid: String
    /// The public half, for verifying and publishing.
    public let publicKey: VerificationKey
    /// Unencrypted PKCS#8 PEM, the form libjwt re-parses on every signature.
    let privatePEM: [UInt8]
    /// The key parsed once, for the fast path.
    let parsed: ParsedKey

    /// Generates a fresh EC P-256 (ES256) or RSA-2048 (RS256) key.
    public static func generate(_ algorithm: SigningAlgorithm) throws(TokenError) -> SigningKey {
        try SigningKey(key: PKey.generate(algorithm))
    }

    /// Parses a PEM private key: PKCS#8 ("PRIVATE KEY"), SEC1 ("EC PRIVATE KEY") or
    /// PKCS#1 ("RSA PRIVATE KEY"). Public keys, encrypted keys, curves other than P-256
    /// and RSA keys under 2048 bits → `TokenError.invalidKey`.
    public init(pem: String) throws(TokenError) {
        try self.init(key: PKey(privatePEM: pem))
    }

    /// Takes `key` and derives the public half and the PKCS#8 form from it.
    init(key: consuming PKey) throws(TokenError) {
        let privatePEM = try key.privatePKCS8PEM()
        let parsed = try ParsedKey(key)
        let publicKey = try VerificationKey(publicHalfOf: parsed)
        self.algorithm = publicKey.algorithm
        self.kid = publicKey.kid
        self.publicKey = publicKey
        self.privatePEM = privatePEM
        self.parsed = parsed
    }

    /// The JWS signature (RFC 7515 §5.1; for ES256 the raw `r ‖ s`) of `input`, for a JWS
    /// whose header this key's holder writes, such as a DPoP proof.
    public func signature(of input: some Sequence<UInt8>) throws(TokenError) -> [UInt8] {
        try parsed.sign(Array(input))
    }

    /// A secret that every holder of this key derives alike and nobody else can, for keying
    /// what all instances must seal and open the same way (DPoP nonces): `purpose` keeps
    /// each use's key apart, and none of them reveals the private key.
    public func derivedSecret(purpose: String) -> [UInt8] {
        Crypto.sha256(Array(purpose.utf8) + [0] + privatePEM)
    }

    /// PKCS#8 PEM of the private key (for writing to disk).
    public func pkcs8PEM() throws(TokenError) -> String {
        // Kept throwing so callers need not change if the key ever lives outside memory.
        String(decoding: privatePEM, as: UTF8.self)
    }
}

/// Descriptions name the key but never print its private material.
extension SigningKey: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// "SigningKey(ES256, kid: …)".
    public var description: String { "SigningKey(\(algorithm.rawValue), kid: \(kid))" }
    /// Same as `description`.
    public var debugDescription: String { description }
    /// A mirror without the private key, so `dump` cannot leak it either.
    public var customMirror: Mirror {
        Mirror(self, children: ["algorithm": algorithm, "kid": kid], displayStyle: .struct)
    }
}
