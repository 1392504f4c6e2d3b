import Testing
@testable import FieldpassDomain

@Suite("Sign-in rules, without a database")
struct SignInRulesTests {
    static let attempt = SignInAttempt(userID: "u1", issuer: "https://idp.test", subject: "sub-1", promoteToAdmin: false)
    static let bootstrap = SignInAttempt(userID: "u1", issuer: "https://idp.test", subject: "sub-1", promoteToAdmin: true)

    static func user(
        issuer: String? = nil, subject: String? = nil, role: Role = .worker, disabled: Bool = false, signedIn: Bool = false
    ) -> SignInRules.User {
        SignInRules.User(id: "u1", role: role.rawValue, issuer: issuer, subject: subject, disabled: disabled, signedInBefore: signedIn)
    }

    @Test func aFirstSignInBindsAndAuditsNothing() {
        let user = Self.user()
        #expect(SignInRules.needsHolderLookup(user: user, attempt: Self.attempt))
        #expect(SignInRules.decide(user: user, holder: nil, attempt: Self.attempt) == SignInRules.Decision())
    }

    @Test func theBoundAccountSignsInWithoutALookup() {
        let user = Self.user(issuer: "https://idp.test", subject: "sub-1", signedIn: true)
        #expect(!SignInRules.needsHolderLookup(user: user, attempt: Self.attempt))
        #expect(SignInRules.decide(user: user, holder: nil, attempt: Self.attempt).refusal == nil)
    }

    @Test(arguments: [("https://idp.test", "sub-2"), ("https://other.test", "sub-1")])
    func anotherAccountIsAMismatch(issuer: String, subject: String) {
        let decision = SignInRules.decide(
            user: Self.user(issuer: issuer, subject: subject, signedIn: true), holder: nil, attempt: Self.attempt)
        #expect(decision.refusal == .identityMismatch)
        #expect(decision.audit.map(\.action) == ["identity.mismatch"])
        #expect(decision.audit.first?.before == ["issuer": issuer, "subject": subject])
    }

    @Test func aBindingFromBeforeIssuersMatchesOnTheSubjectButIsCheckedForHolders() {
        let legacy = Self.user(subject: "sub-1", signedIn: true)
        #expect(SignInRules.needsHolderLookup(user: legacy, attempt: Self.attempt))
        #expect(SignInRules.decide(user: legacy, holder: nil, attempt: Self.attempt).refusal == nil)
        #expect(SignInRules.decide(user: legacy, holder: "u2", attempt: Self.attempt).refusal == .identityInUse)
    }

    @Test func anAccountHeldByAnotherUserBindsNothingAndPromotesNobody() {
        let decision = SignInRules.decide(user: Self.user(), holder: "u2", attempt: Self.bootstrap)
        #expect(decision.refusal == .identityInUse && decision.role == nil)
        #expect(
            decision.audit == [
                AuditRecord(
                    actor: "idp", action: "identity.in_use", target: "user:u1", before: nil,
                    after: ["issuer": "https://idp.test", "subject": "sub-1", "bound_to": "user:u2"]
                )
            ])
    }

    @Test func aDisabledPersonIsRefusedBeforeAnythingElse() {
        let decision = SignInRules.decide(user: Self.user(subject: "other", disabled: true), holder: "u2", attempt: Self.bootstrap)
        #expect(decision == SignInRules.Decision(refusal: .userDisabled))
    }

    @Test func aBootstrapAdminIsPromotedAtTheFirstSignInOnly() {
        let first = SignInRules.decide(user: Self.user(), holder: nil, attempt: Self.bootstrap)
        #expect(first.role == .admin && first.audit.map(\.action) == ["user.role"] && first.audit.first?.actor == "bootstrap")
        let later = SignInRules.decide(
            user: Self.user(issuer: "https://idp.test", subject: "sub-1", signedIn: true), holder: nil, attempt: Self.bootstrap)
        #expect(later.role == nil && later.audit.isEmpty)
        let already = SignInRules.decide(user: Self.user(role: .admin), holder: nil, attempt: Self.bootstrap)
        #expect(already.role == nil && already.audit.isEmpty)
    }
}
