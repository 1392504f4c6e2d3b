public import FieldpassDomain
public import Foundation

/// The session sweep: every step of ``SessionRules/sweep(now:deliveredBefore:deleteBefore:)``
/// in one transaction. Each step is conditional, so two instances sweeping at once do each once.
extension TransactionalStore {
    public func sweepSessions(now: Date, deliveredBefore: Date, deleteBefore: Date) async throws -> [StoredEvent] {
        let events = try await writing { transaction -> [StoredEvent] in
            var events: [StoredEvent] = []
            let steps = SessionRules.sweep(
                now: now.timeIntervalSince1970, deliveredBefore: deliveredBefore.timeIntervalSince1970,
                deleteBefore: deleteBefore.timeIntervalSince1970)
            for step in steps { events += try await transaction.run(step) }
            return events
        }
        await announce(events)
        return events
    }
}

extension StoreTransaction {
    /// One step of the session sweep; returns the events it stored.
    fileprivate func run(_ step: SessionSweepStep) async throws -> [StoredEvent] {
        switch step {
        case .expireOverdue(let move):
            return try await apply(move).events
        case .dropTokenEvents(let now, let deliveredBefore):
            try await execute(SessionSweepStatements.dropTokenEvents, now, deliveredBefore, SessionRules.tokenEventType)
        case .markEnded(let now, let deliveredBefore):
            try await execute(SessionSweepStatements.markEnded, now, deliveredBefore)
        case .deleteExpired(let before):
            try await execute(SessionSweepStatements.deleteExpired, before)
        case .purgeSpentTokens(let step):
            try await purge(step)
        }
        return []
    }

    /// Runs one step of ``TokenPurge``.
    fileprivate func purge(_ step: TokenPurgeStep) async throws {
        switch step {
        case .forgetRevocations(let expiredBy): try await execute(TokenPurgeStatements.forgetRevocations, expiredBy)
        case .deleteExpiredRefreshTokens(let expiredBy): try await execute(TokenPurgeStatements.deleteExpiredRefreshTokens, expiredBy)
        case .deleteTwiceRotated(let rotatedBefore): try await execute(TokenPurgeStatements.deleteTwiceRotated, rotatedBefore)
        case .clearSealedSuccessors(let rotatedBefore): try await execute(TokenPurgeStatements.clearSealedSuccessors, rotatedBefore)
        case .forgetDPoPProofs(let expiredBy): try await execute(DPoPTables.forgetProofs, expiredBy)
        }
    }
}
