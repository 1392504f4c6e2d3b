/// Every failure the Tokens module reports.
public enum TokenError: Error, Equatable, Sendable {
    /// The token or a JSON document is not well formed; the text says what.
    case malformed(String)
    /// The token's `alg` is not one we accept (e.g. "none", "HS256", or not in the policy).
    case algorithmNotAllowed(String)
    /// No verification key matches the token's `kid` (empty when the token has none and no unique key fits).
    case unknownKey(String)
    /// The signature does not verify with the selected key.
    case invalidSignature
    /// The token's `exp` lies in the past, beyond the leeway.
    case expired
    /// The token's `nbf` or `iat` lies in the future, beyond the leeway.
    case notYetValid
    /// The token's `iss` differs from the required issuer.
    case wrongIssuer
    /// The token's `aud` does not contain the required audience.
    case wrongAudience
    /// A claim the policy requires is absent; the text names it.
    case missingClaim(String)
    /// A key could not be parsed or is too weak; the text says why.
    case invalidKey(String)
    /// A key is well formed but of a type, curve, use or algorithm we do not support.
    case unsupportedKey(String)
    /// A key folder holds no `.pem` file; the text is the folder path.
    case noKeys(String)
    /// OpenSSL or libjwt failed unexpectedly; the text carries their error.
    case crypto(String)
    /// Reading or writing a key file failed.
    case io(String)
}

/// Readable text for logs and for prefixing with a file name.
extension TokenError: CustomStringConvertible {
    /// A one-line description of the failure.
    public var description: String {
        switch self {
        case .malformed(let detail): "malformed token: \(detail)"
        case .algorithmNotAllowed(let alg): "algorithm not allowed: \(alg)"
        case .unknownKey(let kid): kid.isEmpty ? "no key matches the token" : "unknown key id: \(kid)"
        case .invalidSignature: "invalid signature"
        case .expired: "token expired"
        case .notYetValid: "token not yet valid"
        case .wrongIssuer: "wrong issuer"
        case .wrongAudience: "wrong audience"
        case .missingClaim(let claim): "missing claim: \(claim)"
        case .invalidKey(let reason): "invalid key: \(reason)"
        case .unsupportedKey(let reason): "unsupported key: \(reason)"
        case .noKeys(let directory): "no .pem keys in \(directory)"
        case .crypto(let detail): "crypto failure: \(detail)"
        case .io(let detail): "I/O failure: \(detail)"
        }
    }
}
