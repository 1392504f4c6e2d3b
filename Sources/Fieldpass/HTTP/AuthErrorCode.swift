/// Codes of access-token authentication (RFC 6750, RFC 9449 §7) and of the role checks
/// behind it.
enum AuthErrorCode: String, APIErrorCode {
    case unauthorized
    case invalidToken = "invalid_token"
    case forbidden
    /// A bound token's proof is missing or fails a check.
    case invalidDPoPProof = "invalid_dpop_proof"
    /// The proof needs the nonce of the answer's `DPoP-Nonce` header.
    case useDPoPNonce = "use_dpop_nonce"
}
