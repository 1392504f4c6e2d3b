/// Which code computes and checks signatures.
public enum SignatureBackend: Sendable, CaseIterable {
    /// OpenSSL's EVP calls with a key parsed once: our own tokens, on every hot path.
    case parsedKey
    /// libjwt, which parses the PEM again on every call: for keys that change per call
    /// (an identity provider's) and as an independent check of the fast path in tests.
    case libjwt
}
