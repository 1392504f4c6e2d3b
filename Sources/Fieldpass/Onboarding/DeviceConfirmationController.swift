import FieldpassDomain
import Foundation
import Hummingbird
import Tokens

/// `GET`/`POST /login/{login_id}`: the page a person sees before the IdP.
///
/// It names the device that asked to sign in and repeats the code the app shows, so that a
/// person who opens a sign-in link someone else started (cross-device phishing, RFC 8628
/// section 5.4) sees that it is not theirs. Its button POSTs back here with a form token
/// bound to the session and, as a cookie that another site's form cannot send along
/// (SameSite=Strict), to this browser. Only then is the IdP's URL, with the state, given
/// out: once, so the link is used up.
///
/// The same answer sets ``BrowserBinding``'s cookie: only the browser that confirmed can
/// finish the sign-in at `/auth_callback`, so an IdP link forwarded to someone else gets
/// the sender nothing.
struct DeviceConfirmationController: Sendable {
    let store: any OnboardingStore
    let environments: EnvironmentDirectory
    let server: ServerSettings

    static let cookieName = "fieldpass_confirm"

    func addRoutes(to router: some RouterMethods<AppRequestContext>) {
        router.get("login/:login_id", use: show)
        router.post("login/:login_id", use: confirm)
    }

    @Sendable func show(_ request: Request, context: AppRequestContext) async throws -> Response {
        let loginID = try Self.loginID(context)
        guard let confirmation = try await store.confirmation(loginID: loginID, now: Date()) else { throw Self.unknownLink }
        guard confirmation.isUsable else { throw Self.usedLink }
        return HTMLPage(title: "Confirm your device", bodyHTML: Self.form(confirmation))
            .response(status: .ok, headers: [.setCookie: cookie(confirmation.csrfToken, loginID: loginID)])
    }

    @Sendable func confirm(_ request: Request, context: AppRequestContext) async throws -> Response {
        let loginID = try Self.loginID(context)
        let field = try await Self.formToken(request)
        let cookie = request.cookies[Self.cookieName]?.value
        // A form token without its cookie (or the other way round) did not come from the page in
        // this browser; the store still says first whether the link is unknown or used.
        var presented = ""
        if let field, let cookie, Crypto.constantTimeEquals(Array(field.utf8), Array(cookie.utf8)) { presented = field }
        let binding = try BrowserBinding.make()
        switch try await store.confirmDevice(loginID: loginID, csrfToken: presented, browserBinding: binding.digest, now: Date()) {
        case .confirmed(let session, let state):
            FieldpassMetrics.onboarding(.confirmed)
            guard let environment = environments.entry(id: session.environmentID),
                let url = try? await environment.idp.authorizationURL(
                    state: state, nonce: session.nonce, codeChallenge: Crypto.pkceChallenge(verifier: session.codeVerifier),
                    loginHint: session.email
                )
            else {
                throw HTMLErrorPage(
                    status: .serviceUnavailable,
                    page: HTMLPage(
                        title: "Sign-in unavailable", message: "The sign-in service cannot be reached. Start again from the app.")
                )
            }
            return Response(
                status: .seeOther,
                headers: [
                    .location: url, .cacheControl: "no-store",
                    .setCookie: binding.cookie(state: state, expiresAt: session.expiresAt, server: server),
                ]
            )
        case .forged: throw Self.forgedConfirmation
        case .used: throw Self.usedLink
        case .unknown: throw Self.unknownLink
        }
    }

    /// The form token of a urlencoded body of at most 4 KiB; `nil` when it has none.
    private static func formToken(_ request: Request) async throws -> String? {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/x-www-form-urlencoded") == true else {
            return nil
        }
        var request = request
        let body = try await request.collectBody(upTo: 4096)
        struct Form: Decodable { var csrf_token: String? }
        return (try? URLEncodedFormDecoder().decode(Form.self, from: String(buffer: body)))?.csrf_token
    }

    /// The cookie that binds the form to this browser; only ever sent back to this page.
    private func cookie(_ token: String, loginID: String) -> String {
        let secure = server.isHTTPS ? "; Secure" : ""
        return "\(Self.cookieName)=\(token); Path=\(server.publicPath)/login/\(loginID); HttpOnly; SameSite=Strict\(secure)"
    }

    private static func form(_ confirmation: DeviceConfirmation) -> String {
        let registered = confirmation.registeredAt.formatted(
            Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeSeparator: .colon, timeZone: .gmt)
        )
        return """
            <p>A device asked to sign in with your account. Continue only if your app shows this code:</p>
            <p class="code">\(HTMLPage.escape(confirmation.userCode))</p>
            <dl><dt>Device</dt><dd>\(HTMLPage.escape(confirmation.deviceName)) (\(HTMLPage.escape(confirmation.platform)))</dd>
            <dt>Registered</dt><dd>\(HTMLPage.escape(String(registered.dropLast()))) UTC</dd></dl>
            <p>If the code differs, or you did not just start signing in on this device, close this page:
            someone else may be trying to receive your sign-in.</p>
            <form method="post"><input type="hidden" name="csrf_token" value="\(HTMLPage.escape(confirmation.csrfToken))">
            <button type="submit">Continue to sign in</button></form>
            """
    }

    private static func loginID(_ context: AppRequestContext) throws -> String {
        guard let id = context.parameters.get("login_id"), OpaqueToken.isWellFormed(id) else { throw unknownLink }
        return id
    }

    private static let unknownLink = HTMLErrorPage(
        status: .notFound,
        page: HTMLPage(title: "Sign-in link not valid", message: "This sign-in link is unknown. Start again from the app.")
    )

    private static let usedLink = HTMLErrorPage(
        status: .gone,
        page: HTMLPage(
            title: "Sign-in link already used",
            message: "This sign-in link was already used or has expired. Start again from the app."
        )
    )

    private static let forgedConfirmation = HTMLErrorPage(
        status: .badRequest,
        page: HTMLPage(
            title: "Confirmation not valid",
            message: "This confirmation did not come from the sign-in page. Open the sign-in link again and press the button there."
        )
    )
}
