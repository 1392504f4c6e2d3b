internal import Foundation
internal import COpenSSL

/// Small crypto helpers used by the service (OpenSSL-backed).
public enum Crypto {
    /// Secure random bytes (RAND_bytes); throws `TokenError.crypto` on failure.
    public static func randomBytes(_ count: Int) throws(TokenError) -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else {
            throw .crypto("random byte count out of range: \(count)")
        }
        var bytes = [UInt8](repeating: 0, count: count)
        guard count > 0 else { return bytes }
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard status == 1 else { throw .crypto("RAND_bytes: \(OpenSSL.drainErrors())") }
        return bytes
    }

    /// URL-safe random token: base64url (no padding) of `byteCount` random bytes.
    public static func randomToken(byteCount: Int = 32) throws(TokenError) -> String {
        base64URLEncode(try randomBytes(byteCount))
    }

    /// SHA-256 digest.
    public static func sha256(_ data: some Sequence<UInt8>) -> [UInt8] {
        let input = Array(data)
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        input.withUnsafeBufferPointer { source in
            digest.withUnsafeMutableBufferPointer { out in
                // The one-shot SHA256() cannot fail for in-memory input, so its result is unused.
                _ = SHA256(source.baseAddress, source.count, out.baseAddress)
            }
        }
        return digest
    }

    /// base64url without padding (RFC 7515 section 2).
    public static func base64URLEncode(_ bytes: some Sequence<UInt8>) -> String {
        Base64URL.encode(Array(bytes))
    }

    /// Decodes base64url with or without padding; nil for characters outside the
    /// URL-safe alphabet, a wrong padding or an impossible length.
    public static func base64URLDecode(_ text: some StringProtocol) -> [UInt8]? {
        Base64URL.decode(Array(text.utf8))
    }

    /// Whether two byte strings are equal, in time that depends only on their length
    /// (CRYPTO_memcmp), so a secret cannot be guessed byte by byte from response times.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        guard !lhs.isEmpty else { return true }
        return lhs.withUnsafeBytes { left in
            rhs.withUnsafeBytes { right in CRYPTO_memcmp(left.baseAddress, right.baseAddress, left.count) == 0 }
        }
    }

    /// PKCE S256 challenge for a verifier: base64url(SHA-256(ASCII(verifier))).
    public static func pkceChallenge(verifier: String) -> String {
        base64URLEncode(sha256(verifier.utf8))
    }
}
