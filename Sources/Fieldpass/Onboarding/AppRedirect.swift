import FieldpassDomain
import Hummingbird

/// The end of a sign-in for an app that registered a redirect URI: a 303 to it with `result`
/// (`signed_in` or `login_failed`), `error` on failure and the app's `app_state`.
///
/// Never a token, a code or the session id: on a phone another app may have claimed the same
/// scheme, and the device receives its tokens by its own channel (the event socket or the
/// long-poll) anyway.
struct AppRedirect {
    enum Outcome {
        case signedIn
        /// The `error` of the session's `login_failed` event (or `session_expired`).
        case failed(code: String)
    }

    let appReturn: AppReturn

    func response(_ outcome: Outcome) -> Response {
        var query: [(String, String)]
        switch outcome {
        case .signedIn: query = [("result", "signed_in")]
        case .failed(let code): query = [("result", "login_failed"), ("error", code)]
        }
        if let state = appReturn.state { query.append(("app_state", state)) }
        let separator = appReturn.uri.contains("?") ? "&" : "?"
        // All but RFC 3986's unreserved characters percent-encoded, so that no app's query
        // parser reads a `+`, `&` or `=` of the state differently.
        let location = appReturn.uri + separator + FormEncoding.encode(query)
        var headers: HTTPFields = [.location: location]
        HTMLPage.secure(&headers, styles: "'none'")
        return Response(status: .seeOther, headers: headers)
    }
}
