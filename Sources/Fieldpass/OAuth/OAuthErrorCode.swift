/// Codes of `/token`, `/revoke` and `/introspect` (RFC 6749 §5.2, RFC 7009).
enum OAuthErrorCode: String, APIErrorCode {
    case invalidClient = "invalid_client"
    case invalidGrant = "invalid_grant"
    case unauthorizedClient = "unauthorized_client"
    case unsupportedGrantType = "unsupported_grant_type"
    /// RFC 9449 §5: a DPoP proof is missing where the token needs one, or fails a check.
    case invalidDPoPProof = "invalid_dpop_proof"
    /// RFC 9449 §8: the proof needs the nonce of the answer's `DPoP-Nonce` header.
    case useDPoPNonce = "use_dpop_nonce"
}
