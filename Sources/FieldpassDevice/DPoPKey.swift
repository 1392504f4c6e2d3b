public import Foundation

/// The key a device proves its requests with (DPoP, RFC 9449): Fieldpass binds the device's
/// refresh token (and, when it is configured to, its access tokens) to this key, and every
/// later use of them needs a fresh proof signed by it. A copy of the tokens without the key is
/// worth nothing.
///
/// ``SoftwareDPoPKey`` is a P-256 key in memory, kept by ``FileDPoPKeyStore`` or wherever the
/// app keeps secrets; on iOS a Secure Enclave key, which never leaves the phone, conforms in a
/// few lines (see `Docs/app.md`).
public protocol DPoPKey: Sendable {
    /// The JWS algorithm of its signatures: `ES256` for a P-256 key.
    var algorithm: String { get }
    /// The public key as a JWK, public members only: for a P-256 key `kty` (`EC`), `crv`
    /// (`P-256`), and `x` and `y` (each coordinate's 32 bytes, base64url).
    var publicJWK: [String: String] { get }
    /// The JWS signature of a proof's signing input (the ASCII bytes of `header.payload`): for
    /// ES256 the raw `r || s`, 64 bytes (RFC 7518 §3.4), not DER.
    func sign(_ signingInput: Data) async throws -> Data
}

extension DPoPKey {
    /// The key's RFC 7638 thumbprint: what Fieldpass binds tokens to, and shows as `cnf.jkt`.
    public var thumbprint: String {
        get throws { try JWKThumbprint.sha256(of: publicJWK) }
    }
}
