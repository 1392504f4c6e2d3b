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
package enum TokenPurge {
    /// The longest `tokens.refresh_reuse_grace` may be, in seconds (as Hydra's `rotation_grace_period`).
    package static let maxRefreshReuseGrace = 300

    /// The purge's steps at `now`, in the order a store runs them.
    package static func steps(now: Double) -> [TokenPurgeStep] {
        let rotatedBefore = now - Double(maxRefreshReuseGrace)
        return [
            .forgetRevocations(expiredBy: now - RevocationSet.expiryMargin),
            .deleteExpiredRefreshTokens(expiredBy: now),
            .deleteTwiceRotated(rotatedBefore: rotatedBefore),
            .clearSealedSuccessors(rotatedBefore: rotatedBefore),
            .forgetDPoPProofs(expiredBy: now),
        ]
    }
}
