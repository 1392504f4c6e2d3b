public import FieldpassDomain
public import Foundation

/// A person signing in with their IdP account, as ``SignInRules`` decides: the account's
/// binding, a bootstrap admin's promotion, and the teams and role the claims set.
extension TransactionalStore {
    /// Locks the person: of two first sign-ins at once, one binds the identity (and promotes a
    /// bootstrap admin) and the other sees that binding.
    public func recordSignIn(_ attempt: SignInAttempt, now: Date) async throws -> SignInOutcome {
        let (outcome, announced) = try await writing { transaction -> (SignInOutcome, Bool) in
            let timestamp = now.timeIntervalSince1970
            guard let row = try await transaction.first(UserStatements.signingIn, attempt.userID, locking: .users) else {
                throw DirectoryError.unknownUser
            }
            let environmentID: String = try row.column("environment_id")
            let user = try SignInRules.User(id: attempt.userID, row: row)
            var holder: String?
            if SignInRules.needsHolderLookup(user: user, attempt: attempt) {
                // The account's turn makes two first sign-ins of it for two people take turns, so
                // the second sees the first one's binding.
                try await transaction.execute(
                    SignInStatements.takeTurnsOnAccount, [environmentID, attempt.issuer, attempt.subject].joined(separator: "\n"))
                holder = try await transaction.value(
                    UserStatements.identityHolder, environmentID, attempt.subject, attempt.issuer, attempt.userID, as: String.self)
            }
            var teams: SignInRules.Teams?
            if let names = SignInRules.teamNamesToResolve(user: user, attempt: attempt) {
                teams = try await transaction.signInTeams(userID: attempt.userID, environmentID: environmentID, names: names)
            }
            let decision = SignInRules.decide(user: user, holder: holder, attempt: attempt, teams: teams)
            if !decision.audit.isEmpty { try await transaction.audit(decision.audit, environmentID: environmentID, now: now) }
            if let refusal = decision.refusal { return (refusal, false) }
            try await transaction.execute(UserStatements.signedIn, attempt.issuer, attempt.subject, timestamp, attempt.userID)
            if let role = decision.role { try await transaction.execute(UserStatements.setRole, role.rawValue, attempt.userID) }
            try await transaction.applyTeams(of: decision, userID: attempt.userID, environmentID: environmentID, now: timestamp)
            let changed = user.issuer != attempt.issuer || user.subject != attempt.subject || decision.changesAccess
            if changed { try await transaction.announce([.user(id: attempt.userID)]) }
            guard let facts = try await transaction.first(SignInStatements.accessFacts, attempt.userID, environmentID) else {
                throw DirectoryError.unknownUser
            }
            return (.signedIn(try AccessFacts(row: facts)), changed)
        }
        // This instance forgets what it remembered of the person before answering.
        if announced { await revocationsCaughtUp() }
        return outcome
    }
}
