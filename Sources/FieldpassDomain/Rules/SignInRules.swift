/// What a sign-in the IdP vouched for changes: decided here once, applied by each store.
///
/// The store reads the user (locked where it must be) and, when ``needsHolderLookup(user:attempt:)``
/// says so, who else holds the IdP account; ``decide(user:holder:attempt:)`` says what follows.
/// No SQL, no I/O: every rule of the sign-in is unit-tested without a database.
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

    /// What the store writes: the binding and, for a bootstrap admin's first sign-in, the role.
    package struct Decision: Sendable, Equatable {
        /// `nil` when the sign-in goes ahead; else what it ends as (nothing is bound).
        package var refusal: SignInOutcome?
        /// Make the user admin (a bootstrap admin's first sign-in).
        package var promoteToAdmin = false
        package var audit: [AuditRecord] = []

        package init(refusal: SignInOutcome? = nil, promoteToAdmin: Bool = false, audit: [AuditRecord] = []) {
            self.refusal = refusal
            self.promoteToAdmin = promoteToAdmin
            self.audit = audit
        }
    }

    /// Whether the store must look for another user holding the attempt's account: unless
    /// the user's binding already carries the attempt's issuer (then the unique index, or the
    /// mismatch rule, settles it). A binding from before issuers were recorded takes its
    /// issuer now, so it is checked too.
    package static func needsHolderLookup(user: User, attempt: SignInAttempt) -> Bool {
        user.issuer != attempt.issuer
    }

    /// The decision, given the user and `holder`: another user of the environment bound to the
    /// attempt's account (`nil` when none, or when no lookup was needed).
    package static func decide(user: User, holder: String?, attempt: SignInAttempt) -> Decision {
        let target = "user:\(user.id)"
        if user.disabled { return Decision(refusal: .userDisabled) }
        // An identity bound before issuers were recorded matches on the subject alone.
        if let subject = user.subject, subject != attempt.subject || (user.issuer != nil && user.issuer != attempt.issuer) {
            let mismatch = AuditRecord(
                actor: "idp", action: "identity.mismatch", target: target,
                before: ["issuer": user.issuer ?? "", "subject": subject],
                after: ["issuer": attempt.issuer, "subject": attempt.subject]
            )
            return Decision(refusal: .identityMismatch, audit: [mismatch])
        }
        // One IdP account is one person.
        if let holder {
            let inUse = AuditRecord(
                actor: "idp", action: "identity.in_use", target: target, before: nil,
                after: ["issuer": attempt.issuer, "subject": attempt.subject, "bound_to": "user:\(holder)"]
            )
            return Decision(refusal: .identityInUse, audit: [inUse])
        }
        guard attempt.promoteToAdmin, !user.signedInBefore, user.role != Role.admin.rawValue else { return Decision() }
        let promotion = AuditRecord(
            actor: "bootstrap", action: "user.role", target: target, before: ["role": user.role], after: ["role": Role.admin.rawValue]
        )
        return Decision(promoteToAdmin: true, audit: [promotion])
    }
}
