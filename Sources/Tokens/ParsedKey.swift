internal import COpenSSL

/// An OpenSSL key parsed once and then shared by every signature and verification.
///
/// libjwt takes a PEM and parses it on every call, which costs far more than the signature
/// itself; this key signs and verifies with `EVP_DigestSign`/`EVP_DigestVerify` directly.
/// An `EVP_PKEY` is not modified by signing or verifying, so threads may share it.
final class ParsedKey: @unchecked Sendable {
    /// The algorithm the key serves, fixed when it was parsed.
    let algorithm: SigningAlgorithm
    private let key: PKey

    /// Takes ownership of `key`; fails for keys that serve neither algorithm.
    init(_ key: consuming PKey) throws(TokenError) {
        self.algorithm = try key.algorithm()
        self.key = key
    }

    /// Runs `body` with the underlying key, for conversions that need the `PKey` itself.
    func withKey<Result>(_ body: (borrowing PKey) throws(TokenError) -> Result) throws(TokenError) -> Result {
        try body(key)
    }

    /// The JWS signature over `input`: ES256's raw `r‖s` (RFC 7518 §3.4) or RS256's PKCS#1 v1.5 bytes.
    func sign(_ input: [UInt8]) throws(TokenError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw .crypto("EVP_MD_CTX_new failed") }
        defer { EVP_MD_CTX_free(context) }
        // EVP_PKEY_get_size is the largest signature the key can make (DER ECDSA varies in length).
        var length = Int(EVP_PKEY_get_size(key.pointer))
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key.pointer) == 1,
            EVP_DigestSign(context, &signature, &length, input, input.count) == 1
        else { throw .crypto("EVP_DigestSign: \(OpenSSL.drainErrors())") }
        signature.removeLast(signature.count - length)
        switch algorithm {
        case .es256:
            guard let raw = ECDSASignature.raw(fromDER: signature) else {
                throw .crypto("OpenSSL returned an ECDSA signature that is not DER")
            }
            return raw
        case .rs256:
            return signature
        }
    }

    /// Whether `signature` (JWS form) is this key's signature over `input`. A signature of
    /// the wrong length is refused before OpenSSL sees it.
    func verify(_ signature: [UInt8], of input: [UInt8]) -> Bool {
        let encoded: [UInt8]
        switch algorithm {
        case .es256:
            guard signature.count == ECDSASignature.rawLength else { return false }
            encoded = ECDSASignature.der(fromRaw: signature)
        case .rs256:
            guard signature.count == Int(EVP_PKEY_get_size(key.pointer)) else { return false }
            encoded = signature
        }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let verified =
            EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key.pointer) == 1
            && EVP_DigestVerify(context, encoded, encoded.count, input, input.count) == 1
        // A failed check leaves errors in the thread's queue; they must not reach a later message.
        if !verified { ERR_clear_error() }
        return verified
    }
}
