import FieldpassDomain
import Foundation
import Hummingbird
import Logging
import Tokens

/// `GET /auth_callback`: where the IdP sends the browser back.
///
/// The state is taken first and atomically, so a replayed, forged or expired callback gets
/// a 400 page and touches no session. From then on every outcome, good or bad, is stored as
/// the session's event and shown to the person as a small page. A confirmed session's
/// callback must come from the browser that confirmed (``BrowserBinding``): from any other,
/// no code is exchanged and the session fails as `browser_mismatch`, audited.
struct AuthCallbackController: Sendable {
    let store: any FieldpassStore
    let environments: EnvironmentDirectory
    let tokenIssuer: TokenIssuer

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("auth_callback", use: callback)
    }

    @Sendable func callback(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let state = query.get("state"), OpaqueToken.isWellFormed(state),
            let session = try await store.consumeState(state, now: Date()),
            let environment = environments.entry(id: session.environmentID)
        else {
            throw HTMLErrorPage(
                status: .badRequest,
                page: HTMLPage(
                    title: "Sign-in link not valid",
                    message: "This sign-in link is unknown, was already used or has expired. Start again from the app."
                )
            )
        }
        do {
            guard BrowserBinding.matches(request, state: state, session: session) else { throw Self.otherBrowser }
            let login = try await signIn(session: session, query: query, environment: environment, logger: context.logger)
            let events = try await store.completeLogin(login, now: Date())
            guard !events.isEmpty else {
                return HTMLPage(title: "Sign-in expired", message: "This sign-in took too long. Start again from the app.")
                    .response(status: .badRequest)
            }
            FieldpassMetrics.onboarding(.signedIn)
            // The only terminal event a sign-in stores is data_ready, for a realm filled already.
            FieldpassMetrics.onboarding(.dataReady, count: events.filter(\.isTerminal).count)
            return HTMLPage(title: "Signed in", message: "You are signed in. You can close this window and return to the app.")
                .response(status: .ok)
        } catch let failure as OIDCError {
            // The code may be the IdP's (or a forger's) word: log it only as a listed reason.
            context.logger.info(
                "Sign-in failed", metadata: ["environment": "\(session.environmentID)", "error": "\(LoginFailureReason.label(failure.code))"]
            )
            let stored = try await store.failLogin(
                sessionID: session.id, error: failure.code, description: failure.description,
                audited: failure == Self.otherBrowser, now: Date()
            )
            if !stored.isEmpty { FieldpassMetrics.loginFailed(code: failure.code) }
            return HTMLPage(title: "Sign-in failed", message: failure.description).response(status: .badRequest)
        }
    }

    /// A forwarded sign-in link: the IdP sent someone else's browser back. The device that
    /// started it (perhaps an attacker's) learns only that.
    static let otherBrowser = OIDCError(
        LoginFailureReason.browserMismatch.rawValue,
        "This sign-in was confirmed in another browser. Finish signing in on the device that started it, from its own sign-in link."
    )

    /// The IdP's answer, checked step by step (RFC 6749 4.1.2, RFC 9207, OIDC Core 3.1.3).
    private func signIn(
        session: OnboardingSession, query: Parameters, environment: EnvironmentDirectory.Entry, logger: Logger
    ) async throws -> CompletedLogin {
        let idp = environment.idp
        if let error = query.get("error") {
            throw OIDCError(
                LoginErrorText.code(error),
                LoginErrorText.description(query.get("error_description") ?? "The identity provider refused the sign-in.")
            )
        }
        if let issuer = query.get("iss"), issuer != idp.issuer {
            throw OIDCError("invalid_request", "The response came from another identity provider.")
        }
        guard let code = query.get("code"), !code.isEmpty, code.utf8.count <= 2048 else {
            throw OIDCError("invalid_request", "The identity provider sent no authorization code.")
        }
        let tokens = try await idp.exchange(code: code, codeVerifier: session.codeVerifier)
        let now = Date()
        let identity = try await idp.validateIDToken(tokens.idToken, nonce: session.nonce, now: now)
        var email = (address: identity.claims.email, verified: identity.claims.emailVerified)
        var userInfo: UserInfoResponse?
        if email.address == nil, let accessToken = tokens.accessToken {
            userInfo = try await idp.userInfo(accessToken: accessToken, subject: identity.subject)
            email = (userInfo?.email, userInfo?.emailVerified)
        }
        guard let address = email.address else {
            throw OIDCError("email_mismatch", "The identity provider did not say which email address signed in.")
        }
        guard EmailAddress(address)?.value == session.email else {
            throw OIDCError("email_mismatch", "You signed in with another account than the one registered on the device.")
        }
        let mustBeVerified = environment.settings.idp.requireEmailVerified
        if email.verified == false || (mustBeVerified && email.verified != true) {
            throw OIDCError("email_not_verified", "The identity provider has not verified this email address.")
        }
        let claims = SignInClaims.mapped(
            environment.settings.claimMappings, idToken: identity.claims.all, userInfo: userInfo?.all,
            environmentID: session.environmentID, logger: logger
        )
        let attempt = SignInAttempt(
            userID: session.userID, issuer: idp.issuer, subject: identity.subject,
            promoteToAdmin: environment.settings.bootstrapAdmins.contains(session.email), claims: claims
        )
        let facts: AccessFacts
        switch try await store.recordSignIn(attempt, now: now) {
        case .signedIn(let signedIn):
            facts = signedIn
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
        do {
            return try tokenIssuer.issue(for: session, facts: facts, now: now)
        } catch {
            throw OIDCError("server_error", "The device token could not be issued.")
        }
    }
}
