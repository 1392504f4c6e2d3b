import FieldpassDomain
import Foundation
import Hummingbird

/// Lets a request through to the console's pages only from a live session of an admin or a
/// manager, and a POST only with that session's anti-CSRF token. Anything else changes
/// nothing: without a session the browser goes back to sign-in; with a bad token it gets 403.
struct ConsoleSessionMiddleware: RouterMiddleware {
    typealias Context = AppRequestContext

    let store: any ConsoleStore
    let settings: ConsoleSettings
    let server: ServerSettings
    let renderer: ConsoleRenderer

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let cookie = ConsoleCookie.presented(in: request),
            let live = try await store.consoleSession(idHash: cookie.idHash, now: Date(), idleTimeout: TimeInterval(settings.idleTimeout))
        else { return signInAgain() }
        guard live.user.role.may(.read) else {
            // Demoted since signing in: the session ends with the role that allowed it.
            try await store.endConsoleSession(idHash: cookie.idHash)
            return signInAgain()
        }
        var request = request
        var form: [String: String] = [:]
        if request.method == .post {
            form = try await ConsoleForm.fields(&request)
            guard cookie.acceptsForm(token: form["csrf_token"]) else {
                return renderer.message(
                    status: .forbidden, title: "Form not accepted",
                    text: "This form did not come from your console session, or the session has changed. Reload the page and try again."
                )
            }
        }
        var context = context
        context.consoleVisit = ConsoleVisit(user: live.user, cookie: cookie, form: form)
        return try await next(request, context)
    }

    /// Back to the sign-in page, forgetting a cookie that no longer opens anything.
    private func signInAgain() -> Response {
        Response(
            status: .seeOther,
            headers: [.location: server.publicPath + "/console", .setCookie: ConsoleCookie.clearCookie(server: server)]
        )
    }
}
