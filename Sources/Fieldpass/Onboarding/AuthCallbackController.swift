import FieldpassDomain
import Foundation
import Hummingbird
import Logging
import Tokens

/// `GET /auth_callback`: where the IdP sends the browser back.
///
/// The state is taken first and atomically, so a replayed, forged or expired callback gets
/// a 400 page and touches no session; when the IdP's answer is a refusal, the same commit
/// fails the session, since nothing is exchanged. From then on every outcome, good or bad, is stored as
/// the session's event and shown to the person as a small page, or, for a session registered
/// with an app redirect URI, told to the app by sending the browser back to it (``AppRedirect``). A confirmed session's
/// callback must come from the browser that confirmed (``BrowserBinding``): from any other,
/// no code is exchanged and the session fails as `browser_mismatch`, audited.
struct AuthCallbackController: Sendable {
    let store: any FieldpassStore
    let environments: EnvironmentDirectory
    let tokenIssuer: TokenIssuer
    /// A state that is no device's may be a console sign-in's.
    let console: ConsoleSignInCallback

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("auth_callback", use: callback)
    }

    @Sendable func callback(_ request: Request, context: AppRequestContext) async throws -> Response {
        let query = request.uri.queryParameters
        guard let state = query.get("state"), OpaqueToken.isWellFormed(state) else { throw Self.unknownState }
        if let refusal = IdPSignIn.refusal(in: query) {
            // Nothing to exchange: the state is taken and the session failed in one commit.
            let refused = try await store.refuseState(state, now: Date()) { session in
                Self.loginFailure(BrowserBinding.matches(request, state: state, session: session) ? refusal : Self.otherBrowser)
            }
            guard let refused else { return try await notADeviceState(state, request: request, logger: context.logger) }
            return failed(refused.session, refused.failure, stored: refused.events, logger: context.logger)
        }
        guard let session = try await store.consumeState(state, now: Date()),
            let environment = environments.entry(id: session.environmentID)
        else { return try await notADeviceState(state, request: request, logger: context.logger) }
        do {
            guard BrowserBinding.matches(request, state: state, session: session) else { throw Self.otherBrowser }
            let login = try await signIn(session: session, query: query, environment: environment, logger: context.logger)
            let events = try await store.completeLogin(login, now: Date())
            guard !events.isEmpty else {
                if let appReturn = session.appReturn { return AppRedirect(appReturn: appReturn).response(.failed(code: "session_expired")) }
                return HTMLPage(title: "Sign-in expired", message: "This sign-in took too long. Start again from the app.")
                    .response(status: .badRequest)
            }
            FieldpassMetrics.onboarding(.signedIn)
            // The only terminal event a sign-in stores is data_ready, for a realm filled already.
            FieldpassMetrics.onboarding(.dataReady, count: events.filter(\.isTerminal).count)
            if let appReturn = session.appReturn { return AppRedirect(appReturn: appReturn).response(.signedIn) }
            return HTMLPage(title: "Signed in", message: "You are signed in. You can close this window and return to the app.")
                .response(status: .ok)
        } catch let failure as OIDCError {
            let failure = Self.loginFailure(failure)
            let stored = try await store.failLogin(
                sessionID: session.id, error: failure.error, description: failure.description, audited: failure.audited, now: Date()
            )
            return failed(session, failure, stored: stored, logger: context.logger)
        }
    }

    /// A state that no device session can take: a console sign-in's, an app's that came back
    /// too late, or none.
    private func notADeviceState(_ state: String, request: Request, logger: Logger) async throws -> Response {
        if let console = try await console.finish(state: state, request: request, logger: logger) { return console }
        // The app's sheet waits for its redirect URI, also when the sign-in came back too late.
        if let appReturn = try await store.expiredAppReturn(state: state, now: Date()) {
            return AppRedirect(appReturn: appReturn).response(.failed(code: "session_expired"))
        }
        throw Self.unknownState
    }

    /// How a sign-in stopped by `failure` is stored: audited when it was a forwarded link.
    private static func loginFailure(_ failure: OIDCError) -> LoginFailure {
        LoginFailure(error: failure.code, description: failure.description, audited: failure == otherBrowser)
    }

    /// The failure told to the person, or to the app, once `stored` (empty when the session
    /// had ended meanwhile).
    private func failed(_ session: OnboardingSession, _ failure: LoginFailure, stored: [StoredEvent], logger: Logger) -> Response {
        // The code may be the IdP's (or a forger's) word: log it only as a listed reason.
        logger.info(
            "Sign-in failed",
            metadata: ["environment": "\(session.environmentID)", "error": "\(LoginFailureReason.label(failure.error))"]
        )
        if !stored.isEmpty { FieldpassMetrics.loginFailed(code: failure.error) }
        if let appReturn = session.appReturn { return AppRedirect(appReturn: appReturn).response(.failed(code: failure.error)) }
        return HTMLPage(
            title: "Sign-in failed",
            bodyHTML: "<p>\(HTMLPage.escape(failure.description))</p><p>Start again from the app.</p>"
        ).response(status: .badRequest)
    }

    /// A state that is unknown, used or expired: replayed, forged or late.
    static let unknownState = HTMLErrorPage(
        status: .badRequest,
        page: HTMLPage(
            title: "Sign-in link not valid",
            message: "This sign-in link is unknown, was already used or has expired. Start again from the app."
        )
    )

    /// A forwarded sign-in link: the IdP sent someone else's browser back. The device that
    /// started it (perhaps an attacker's) learns only that.
    static let otherBrowser = OIDCError(
        LoginFailureReason.browserMismatch.rawValue,
        "This sign-in was confirmed in another browser. Finish signing in on the device that started it, from its own sign-in link."
    )

    /// The IdP's answer checked, the sign-in recorded, and the device's tokens issued.
    private func signIn(
        session: OnboardingSession, query: Parameters, environment: EnvironmentDirectory.Entry, logger: Logger
    ) async throws -> CompletedLogin {
        let request = IdPSignIn.Request(
            email: session.email, environmentID: session.environmentID, nonce: session.nonce, codeVerifier: session.codeVerifier
        )
        let verified = try await IdPSignIn(environment: environment).verify(query: query, request: request, logger: logger)
        let now = Date()
        let facts = try await IdPSignIn.record(verified.attempt(userID: session.userID), in: store, now: now)
        let shift = try await shift(of: session, email: facts.user.email, now: now)
        do {
            return try tokenIssuer.issue(for: session, facts: facts, shift: shift, now: now)
        } catch {
            throw OIDCError("server_error", "The device token could not be issued.")
        }
    }

    /// The shift a sign-in on a shared device starts, named by its tokens: a registration
    /// proven by a shared device's key. The store starts it with the sign-in, deciding again
    /// on the device as it is then (``ShiftRules/start``).
    private func shift(of session: OnboardingSession, email: String, now: Date) async throws -> ShiftRecord? {
        guard let key = session.dpopThumbprint, let device = try await store.sharedDevice(keyThumbprint: key),
            device.environmentID == session.environmentID
        else { return nil }
        return ShiftRecord(id: session.deviceID, sharedDeviceID: device.id, userID: session.userID, email: email, startedAt: now)
    }
}
