/// One step of ``TokenPurge``: which rows of the token tables no answer depends on any more.
package enum TokenPurgeStep: Sendable, Equatable {
    /// Revocations of access tokens expiring at or before `expiredBy` are deleted.
    case forgetRevocations(expiredBy: Double)
    /// Refresh tokens expiring at or before `expiredBy` are deleted.
    case deleteExpiredRefreshTokens(expiredBy: Double)
    /// Tokens rotated before `rotatedBefore` whose successor was rotated too are deleted.
    case deleteTwiceRotated(rotatedBefore: Double)
    /// The sealed successors of tokens rotated before `rotatedBefore` are cleared.
    case clearSealedSuccessors(rotatedBefore: Double)
    /// DPoP proofs that expired at or before `expiredBy` are forgotten: their `iat` is refused anyway.
    case forgetDPoPProofs(expiredBy: Double)
}
