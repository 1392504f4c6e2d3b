public import Foundation

/// The keys in use at one moment: one signs, and the public parts of all are published.
/// `KeySchedule` decides which.
public struct KeyRing: Sendable {
    /// The key new tokens are signed with.
    public let signingKey: SigningKey
    /// Public parts of all keys, signing key first, one per kid.
    public let verificationKeys: [VerificationKey]

    /// Public JWKs of all keys, signing key first.
    public var jwks: JWKSet { JWKSet(keys: verificationKeys.map(\.jwk)) }

    /// A signer for the signing key.
    public var signer: JWTSigner { JWTSigner(key: signingKey) }

    /// Creates a ring that signs with `signingKey` and also verifies tokens of `others`
    /// (older keys kept for rotation).
    public init(signingKey: SigningKey, others: [SigningKey] = []) {
        self.signingKey = signingKey
        var seen: Set<String> = []
        verificationKeys = ([signingKey] + others).map(\.publicKey).filter { seen.insert($0.kid).inserted }
    }

    /// The public key with this kid, if the ring has it.
    public func verificationKey(kid: String) -> VerificationKey? {
        verificationKeys.first { $0.kid == kid }
    }

    /// A verifier over all of the ring's public keys.
    public func verifier(policy: JWTVerificationPolicy) -> JWTVerifier {
        JWTVerifier(keys: verificationKeys, policy: policy)
    }

    /// Generates a key and writes it as `<directory>/<UTC yyyyMMdd'T'HHmmss>-<kid prefix>.pem`
    /// (mode 0600; the folder is created with mode 0700 if missing). Returns the key and file.
    public static func generateKey(
        _ algorithm: SigningAlgorithm,
        in directory: URL
    ) throws(TokenError) -> (SigningKey, URL) {
        let key = try SigningKey.generate(algorithm)
        let folder = KeyFolder(directory)
        try folder.create()
        let file = directory.appendingPathComponent("\(KeyFolder.timestamp(Date()))-\(key.kid.prefix(8)).pem")
        try folder.writePrivateFile(file, contents: Array(key.pkcs8PEM().utf8))
        return (key, file)
    }
}
