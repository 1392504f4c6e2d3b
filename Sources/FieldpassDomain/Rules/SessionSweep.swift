/// One step of the sweep that ends sessions whose time ran out and forgets old ones.
package enum SessionSweepStep: Sendable, Equatable {
    /// Sessions past their expiry and still under way move by ``SessionRules/expiry``; each is
    /// counted as an expired onboarding and gets a `session_expired` event.
    case expireOverdue(now: Double)
    /// The token events of sessions past their expiry and not yet ended are deleted: no token
    /// outlives its sign-in in the store, whether or not the device heard the end.
    case dropTokenEvents(now: Double)
    /// Sessions past their expiry are marked ended.
    case markEnded(now: Double)
    /// Sessions that expired before `before` are deleted with their events.
    case deleteExpired(before: Double)
    /// What ``TokenPurge`` says no answer depends on any more is deleted.
    case purgeSpentTokens(now: Double)
}

extension SessionRules {
    /// The sweep's steps, in the order a store runs them in one transaction.
    package static func sweep(now: Double, deleteBefore: Double) -> [SessionSweepStep] {
        [
            .expireOverdue(now: now), .dropTokenEvents(now: now), .markEnded(now: now), .deleteExpired(before: deleteBefore),
            .purgeSpentTokens(now: now),
        ]
    }
}
