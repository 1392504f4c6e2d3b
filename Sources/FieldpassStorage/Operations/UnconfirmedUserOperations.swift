public import FieldpassDomain
public import Foundation

/// People who registered and never signed in, removed once the rule allows
/// (``UnconfirmedUserRules``), leaving nothing behind.
extension TransactionalStore {
    /// Locks the candidates, so a registration of one of them waits, and finds them gone or kept.
    public func removeUnconfirmedUsers(registeredBefore: Date) async throws -> Int {
        try await writing { transaction in
            let cutoff = registeredBefore.timeIntervalSince1970
            let candidates = try await transaction.rows(UnconfirmedUserStatements.candidates, cutoff, locking: .users).map(
                UnconfirmedUserRules.Candidate.init(row:))
            let removal = UnconfirmedUserRules.removal(candidates, cutoff: cutoff)
            guard !removal.userIDs.isEmpty else { return 0 }
            // Each statement's one value is a list, in brackets: a list alone would bind as its items.
            try await transaction.execute(UnconfirmedUserStatements.remove, [removal.userIDs])
            try await transaction.execute(UnconfirmedUserStatements.removeGrants, [removal.personalRealms])
            // Not the audit entries of their creation by a registration, nor their lifecycle events.
            let histories = removal.userIDs.map(UnconfirmedUserRules.forgottenHistory)
            try await transaction.execute(UnconfirmedUserStatements.forgetAuditEntries, [histories.map(\.auditTarget)])
            try await transaction.execute(
                UnconfirmedUserStatements.forgetLifecycleEvents, [histories.map { "%\($0.eventBodyMarker)%" }])
            return removal.userIDs.count
        }
    }
}
