import Crypto
public import Foundation

/// A P-256 DPoP key in software (swift-crypto, which is CryptoKit on Apple platforms),
/// signing ES256. Its private key is only as safe as where the app keeps it:
/// ``FileDPoPKeyStore`` keeps it in a file of mode 0600; on iOS prefer a Secure Enclave key.
public struct SoftwareDPoPKey: DPoPKey {
    private let key: P256.Signing.PrivateKey
    public let publicJWK: [String: String]
    public var algorithm: String { "ES256" }

    /// A new key, from the system's secure random source.
    public init() {
        self.init(P256.Signing.PrivateKey())
    }

    /// The key ``pemRepresentation`` gave.
    public init(pemRepresentation: String) throws {
        self.init(try P256.Signing.PrivateKey(pemRepresentation: pemRepresentation))
    }

    private init(_ key: P256.Signing.PrivateKey) {
        self.key = key
        // X9.63: 0x04, then the two 32-byte coordinates.
        let point = key.publicKey.x963Representation
        publicJWK = [
            "kty": "EC", "crv": "P-256",
            "x": Data(point.dropFirst().prefix(32)).base64URLEncoded, "y": Data(point.suffix(32)).base64URLEncoded,
        ]
    }

    /// The private key as PKCS#8 PEM: a secret, for the app's own private storage only.
    public var pemRepresentation: String { key.pemRepresentation }

    public func sign(_ signingInput: Data) throws -> Data {
        try key.signature(for: signingInput).rawRepresentation
    }
}

extension SoftwareDPoPKey: CustomStringConvertible, CustomReflectable {
    /// Shows the public key's thumbprint only: a printed or dumped key must not hand its private
    /// part to whoever reads the log.
    public var description: String { "SoftwareDPoPKey(\((try? thumbprint) ?? "?"))" }

    public var customMirror: Mirror { Mirror(self, children: ["publicJWK": publicJWK]) }
}
