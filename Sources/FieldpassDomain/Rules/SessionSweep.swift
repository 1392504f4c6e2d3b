/// One step of the sweep that ends sessions whose time ran out and forgets old ones.
package enum SessionSweepStep: Sendable, Equatable {
    /// Sessions past their expiry and still under way move by ``SessionRules/expiry``; each is
    /// counted as an expired onboarding and gets a `session_expired` event
    /// (``SessionRules/overdueExpiry(now:)``).
    case expireOverdue(SessionMove)
    /// The token events of lapsed sessions (past their expiry, not ended, no event stored
    /// since `deliveredBefore`) are deleted: no token outlives its sign-in in the store,
    /// whether or not the device acknowledged it.
    case dropTokenEvents(now: Double, deliveredBefore: Double)
    /// Lapsed sessions are marked ended.
    case markEnded(now: Double, deliveredBefore: Double)
    /// Sessions that expired before `before` are deleted with their events.
    case deleteExpired(before: Double)
    /// A step of ``TokenPurge``: what no answer depends on any more is deleted.
    case purgeSpentTokens(TokenPurgeStep)
}

extension SessionRules {
    /// The sweep's steps, in the order a store runs them in one transaction. A session that
    /// no device acknowledged ends at the later of its expiry and `deliveredBefore`'s grace
    /// after its last event: a device that lost the answer with its token has that long to
    /// ask again, even when its sign-in finished just before the session's expiry.
    package static func sweep(now: Double, deliveredBefore: Double, deleteBefore: Double) -> [SessionSweepStep] {
        [
            .expireOverdue(overdueExpiry(now: now)), .dropTokenEvents(now: now, deliveredBefore: deliveredBefore),
            .markEnded(now: now, deliveredBefore: deliveredBefore), .deleteExpired(before: deleteBefore),
        ] + TokenPurge.steps(now: now).map(SessionSweepStep.purgeSpentTokens)
    }
}
