import FieldpassDomain
import Foundation
import Hummingbird
import Tokens

/// `GET /console` and `POST /console/sign-in`: the console's way in, through the company's IdP.
///
/// The email picks the environment as `register_device` does; the browser then goes
/// through the authorization code flow with PKCE, `state` and `nonce`, and comes back to the
/// same `/auth_callback` as a device's sign-in (``ConsoleSignInCallback``). The sign-in form
/// is bound to the browser by a cookie of its own (double submit), and the rest of the
/// sign-in by ``BrowserBinding``, so a forwarded IdP link signs no one in.
struct ConsoleSignInController: Sendable {
    let store: any ConsoleStore
    let environments: EnvironmentDirectory
    let server: ServerSettings
    let sessions: SessionSettings
    let settings: ConsoleSettings
    let renderer: ConsoleRenderer

    static let formCookieName = "fieldpass_sign_in_form"

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("console", use: show)
        router.post("console/sign-in", use: signIn)
    }

    /// The sign-in form; a browser with a live session goes straight to People.
    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        if let cookie = ConsoleCookie.presented(in: request),
            try await store.consoleSession(idHash: cookie.idHash, now: Date(), idleTimeout: TimeInterval(settings.idleTimeout)) != nil
        {
            return Response(status: .seeOther, headers: [.location: server.publicPath + "/console/people"])
        }
        let formToken = try OpaqueToken.make()
        return renderer.page(
            "sign-in",
            SignInView(
                chrome: .signedOut(title: "Sign in to the Fieldpass console", base: server.publicPath), formToken: formToken, email: ""),
            headers: [.setCookie: formCookie(formToken)]
        )
    }

    @Sendable func signIn(_ request: Request, context: AppRequestContext) async throws -> Response {
        var request = request
        let form = try await ConsoleForm.fields(&request)
        guard let token = form["csrf_token"], let cookie = request.cookies[Self.formCookieName]?.value,
            Crypto.constantTimeEquals(Array(token.utf8), Array(cookie.utf8))
        else {
            return renderer.message(
                status: .forbidden, title: "Form not accepted",
                text: "This form did not come from the sign-in page in this browser. Open the console again and sign in there.",
                back: server.publicPath + "/console"
            )
        }
        guard let email = form["email"].flatMap(EmailAddress.init), let environment = environments.entry(forDomain: email.domain) else {
            return renderer.page(
                "sign-in",
                SignInView(
                    chrome: .signedOut(title: "Sign in to the Fieldpass console", base: server.publicPath), formToken: token,
                    email: form["email"] ?? "", problem: "Enter the email address of your work account."
                ),
                status: .badRequest
            )
        }
        let (state, nonce, verifier, binding) = (
            try OpaqueToken.make(), try OpaqueToken.make(), try OpaqueToken.make(), try BrowserBinding.make()
        )
        let expiresAt = Date().addingTimeInterval(TimeInterval(sessions.ttl))
        try await store.beginConsoleSignIn(
            ConsoleSignIn(
                stateHash: OpaqueToken.digest(state), environmentID: environment.settings.id, email: email.value, nonce: nonce,
                codeVerifier: verifier, browserBinding: binding.digest, expiresAt: expiresAt
            ))
        guard
            let url = try? await environment.idp.authorizationURL(
                state: state, nonce: nonce, codeChallenge: Crypto.pkceChallenge(verifier: verifier), loginHint: email.value
            )
        else {
            return renderer.message(
                status: .serviceUnavailable, title: "Sign-in unavailable",
                text: "The sign-in service cannot be reached. Try again in a moment.", back: server.publicPath + "/console"
            )
        }
        return Response(
            status: .seeOther,
            headers: [.location: url, .setCookie: binding.cookie(state: state, expiresAt: expiresAt, server: server)]
        )
    }

    /// Ties the sign-in form to this browser; sent back only with the console's own POSTs.
    private func formCookie(_ token: String) -> String {
        let secure = server.isHTTPS ? "; Secure" : ""
        return "\(Self.formCookieName)=\(token); Path=\(server.publicPath)/console; HttpOnly; SameSite=Strict\(secure)"
    }

    struct SignInView {
        let chrome: ConsoleChrome
        let formToken: String
        let email: String
        var problem: String? = nil
    }
}
