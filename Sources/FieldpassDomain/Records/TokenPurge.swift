/// What each sweep forgets of the token tables, so they stay bounded; one rule for both stores.
///
/// - A revoked access token fails verification anyway once it is past its expiry and the
///   verifier's clock leeway; until then its revocation must stay.
/// - A refresh token past its expiry is refused before anything else is looked at, so its row
///   changes no answer.
/// - A rotated token past the grace is kept while it is its device's latest rotated one: its
///   coming back is the reuse that cuts the device off (the thief and the device racing on
///   one token). Once its successor has been rotated too, it goes: a device keeps at most two
///   rows, however often it refreshes, and a token two rotations old is simply unknown.
/// - The sealed successor of a rotated token serves only retries within the grace, which is
///   at most ``maxRefreshReuseGrace``.
package struct TokenPurge {
    /// The longest `tokens.refresh_reuse_grace` may be, in seconds (as Hydra's `rotation_grace_period`).
    package static let maxRefreshReuseGrace = 300

    /// Refresh tokens expiring at or before this are deleted.
    package let expiredBy: Double
    /// Revocations of access tokens expiring at or before this are deleted.
    package let revocationsExpiredBy: Double
    /// Sealed successors of tokens rotated before this are cleared, and such tokens whose
    /// successor was rotated too are deleted.
    package let rotatedBefore: Double

    package init(now: Double) {
        expiredBy = now
        revocationsExpiredBy = now - RevocationSet.expiryMargin
        rotatedBefore = now - Double(Self.maxRefreshReuseGrace)
    }
}
