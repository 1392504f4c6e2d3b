import FieldpassDomain
import Foundation
import Hummingbird
import Logging

/// The IdP's answer at `/auth_callback`, checked step by step (RFC 6749 4.1.2, RFC 9207,
/// OIDC Core 3.1.3), and then recorded against the person's bound identity. A device's
/// sign-in and a console sign-in go through the same checks; each failure is an
/// ``OIDCError`` whose description a person can read.
struct IdPSignIn: Sendable {
    /// What the person typed, and what Fieldpass sent the IdP with them.
    struct Request: Sendable {
        let email: String
        let environmentID: String
        let nonce: String
        let codeVerifier: String
    }

    /// Who the IdP vouched for, and the role and teams its claims give.
    struct Verified: Sendable {
        let issuer: String
        let subject: String
        let claims: MappedClaims
        let promoteToAdmin: Bool

        /// The sign-in to record for the person Fieldpass knows by the email.
        func attempt(userID: String) -> SignInAttempt {
            SignInAttempt(userID: userID, issuer: issuer, subject: subject, promoteToAdmin: promoteToAdmin, claims: claims)
        }
    }

    let environment: EnvironmentDirectory.Entry

    /// The IdP's refusal (RFC 6749 4.1.2.1), when its answer is one: then there is nothing to exchange.
    static func refusal(in query: Parameters) -> OIDCError? {
        guard let error = query.get("error") else { return nil }
        return OIDCError(
            LoginErrorText.code(error),
            LoginErrorText.description(query.get("error_description") ?? "The identity provider refused the sign-in.")
        )
    }

    /// Exchanges the code, validates the ID token, and checks that it vouches for `request.email`.
    func verify(query: Parameters, request: Request, logger: Logger) async throws -> Verified {
        let idp = environment.idp
        if let refusal = Self.refusal(in: query) { throw refusal }
        if let issuer = query.get("iss"), issuer != idp.issuer {
            throw OIDCError("invalid_request", "The response came from another identity provider.")
        }
        guard let code = query.get("code"), !code.isEmpty, code.utf8.count <= 2048 else {
            throw OIDCError("invalid_request", "The identity provider sent no authorization code.")
        }
        let tokens = try await idp.exchange(code: code, codeVerifier: request.codeVerifier)
        let identity = try await idp.validateIDToken(tokens.idToken, nonce: request.nonce, now: Date())
        var email = (address: identity.claims.email, verified: identity.claims.emailVerified)
        var userInfo: UserInfoResponse?
        if email.address == nil, let accessToken = tokens.accessToken {
            userInfo = try await idp.userInfo(accessToken: accessToken, subject: identity.subject)
            email = (userInfo?.email, userInfo?.emailVerified)
        }
        guard let address = email.address else {
            throw OIDCError("email_mismatch", "The identity provider did not say which email address signed in.")
        }
        guard EmailAddress(address)?.value == request.email else {
            throw OIDCError("email_mismatch", "You signed in with another account than the one registered on the device.")
        }
        let mustBeVerified = environment.settings.idp.requireEmailVerified
        if email.verified == false || (mustBeVerified && email.verified != true) {
            throw OIDCError("email_not_verified", "The identity provider has not verified this email address.")
        }
        let claims = SignInClaims.mapped(
            environment.settings.claimMappings, idToken: identity.claims.all, userInfo: userInfo?.all,
            environmentID: request.environmentID, logger: logger
        )
        return Verified(
            issuer: idp.issuer, subject: identity.subject, claims: claims,
            promoteToAdmin: environment.settings.bootstrapAdmins.contains(request.email)
        )
    }

    /// Records the verified sign-in: binds the identity, applies the claims, refuses a
    /// disabled person or an IdP account that is someone else's.
    static func record(_ attempt: SignInAttempt, in store: any CredentialStore, now: Date) async throws -> AccessFacts {
        switch try await store.recordSignIn(attempt, now: now) {
        case .signedIn(let facts):
            return facts
        case .identityInUse:
            throw OIDCError(
                LoginFailureReason.identityInUse.rawValue,
                "This account at the identity provider already belongs to another person here. Ask your administrator."
            )
        case .identityMismatch:
            throw OIDCError(
                "identity_mismatch",
                "This email address belongs to another account at the identity provider. Ask your administrator to reset it."
            )
        case .userDisabled:
            throw OIDCError("user_disabled", "This account is disabled. Ask your administrator.")
        }
    }
}
