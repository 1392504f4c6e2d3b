/// What each sweep forgets of the token tables, so they stay bounded; one rule for both stores.
///
/// - A revoked access token past its expiry fails verification anyway.
/// - A refresh token past its expiry is refused before anything else is looked at, so its row
///   changes no answer. That includes rotated ones: until it expires, a rotated token is kept,
///   since its coming back after the grace is the reuse that cuts the device off.
/// - The sealed successor of a rotated token serves only retries within the grace, which is
///   at most ``TokenSettings/maxRefreshReuseGrace``.
struct TokenPurge {
    /// Revoked access tokens and refresh tokens expiring at or before this are deleted.
    let expiredBy: Double
    /// Sealed successors of tokens rotated before this are cleared.
    let rotatedBefore: Double

    init(now: Double) {
        expiredBy = now
        rotatedBefore = now - Double(TokenSettings.maxRefreshReuseGrace)
    }
}
