import Foundation

/// What a sign-in the IdP vouched for changes: decided here once, applied by each store.
///
/// The store reads the user (locked where it must be); when ``needsHolderLookup(user:attempt:)``
/// says so, who else holds the IdP account; and when ``teamNamesToResolve(user:attempt:)`` gives
/// names, the person's teams and the teams of those names (``Teams``).
/// ``decide(user:holder:attempt:teams:newTeamID:)`` says what follows. No SQL, no I/O: every
/// rule of the sign-in is unit-tested without a database.
package enum SignInRules {
    /// The user's row as far as the sign-in rules need it.
    package struct User: Sendable, Equatable {
        package var id: String
        package var role: String
        package var issuer: String?
        package var subject: String?
        package var disabled: Bool
        package var signedInBefore: Bool

        package init(
            id: String, role: String, issuer: String? = nil, subject: String? = nil, disabled: Bool, signedInBefore: Bool
        ) {
            self.id = id
            self.role = role
            self.issuer = issuer
            self.subject = subject
            self.disabled = disabled
            self.signedInBefore = signedInBefore
        }
    }

    /// A team as the sign-in rules need it.
    package struct Team: Sendable, Equatable {
        package var id: String
        package var name: String

        package init(id: String, name: String) {
            self.id = id
            self.name = name
        }
    }

    /// What the store found for the teams of the sign-in's claim.
    package struct Teams: Sendable, Equatable {
        /// The person's teams now.
        package var current: [Team]
        /// Each name of ``teamNamesToResolve(user:attempt:)`` whose team exists, with it.
        package var named: [String: Team]

        package init(current: [Team], named: [String: Team]) {
            self.current = current
            self.named = named
        }
    }

    /// What the store writes: the binding, the role (a bootstrap admin's first sign-in, or the
    /// claim's), and the teams the claim creates, joins and leaves.
    package struct Decision: Sendable, Equatable {
        /// `nil` when the sign-in goes ahead; else what it ends as (nothing is bound).
        package var refusal: SignInOutcome?
        /// The user's new role, or `nil` to keep it.
        package var role: Role?
        /// Teams to create, before the memberships.
        package var createTeams: [Team] = []
        /// Ids of the teams the person joins, and of those they leave.
        package var join: [String] = []
        package var leave: [String] = []
        package var audit: [AuditRecord] = []

        package init(
            refusal: SignInOutcome? = nil, role: Role? = nil, createTeams: [Team] = [], join: [String] = [], leave: [String] = [],
            audit: [AuditRecord] = []
        ) {
            self.refusal = refusal
            self.role = role
            self.createTeams = createTeams
            self.join = join
            self.leave = leave
            self.audit = audit
        }

        /// Whether what the person may reach changes (their role or teams): every instance
        /// must then forget what it remembered of them.
        package var changesAccess: Bool { role != nil || !join.isEmpty || !leave.isEmpty }
    }

    /// Whether the store must look for another user holding the attempt's account: unless
    /// the user's binding already carries the attempt's issuer (then the unique index, or the
    /// mismatch rule, settles it). A binding from before issuers were recorded takes its
    /// issuer now, so it is checked too.
    package static func needsHolderLookup(user: User, attempt: SignInAttempt) -> Bool {
        user.issuer != attempt.issuer
    }

    /// The decision, given the user, `holder`: another user of the environment bound to the
    /// attempt's account (`nil` when none, or when no lookup was needed), and `teams`: what the
    /// store found for ``teamNamesToResolve(user:attempt:)`` (`nil` when it gave none).
    /// `newTeamID` names each team the claim creates.
    package static func decide(
        user: User, holder: String?, attempt: SignInAttempt, teams: Teams? = nil,
        newTeamID: () -> String = { UUID().uuidString.lowercased() }
    ) -> Decision {
        let target = AuditRecord.userTarget(user.id)
        if user.disabled { return Decision(refusal: .userDisabled) }
        // An identity bound before issuers were recorded matches on the subject alone.
        if let subject = user.subject, subject != attempt.subject || (user.issuer != nil && user.issuer != attempt.issuer) {
            let mismatch = AuditRecord(
                actor: DirectoryCaller.idpActor, action: "identity.mismatch", target: target,
                before: ["issuer": user.issuer ?? "", "subject": subject],
                after: ["issuer": attempt.issuer, "subject": attempt.subject]
            )
            return Decision(refusal: .identityMismatch, audit: [mismatch])
        }
        // One IdP account is one person.
        if let holder {
            let inUse = AuditRecord(
                actor: DirectoryCaller.idpActor, action: "identity.in_use", target: target, before: nil,
                after: ["issuer": attempt.issuer, "subject": attempt.subject, "bound_to": "user:\(holder)"]
            )
            return Decision(refusal: .identityInUse, audit: [inUse])
        }
        var decision = Decision()
        decideRole(user: user, attempt: attempt, into: &decision)
        if let teams { decideTeams(user: user, attempt: attempt, teams: teams, newTeamID: newTeamID, into: &decision) }
        return decision
    }
}
