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
        let location = appReturn.uri + separator + query.map { "\($0)=\(Self.encoded($1))" }.joined(separator: "&")
        var headers: HTTPFields = [.location: location]
        HTMLPage.secure(&headers, styles: "'none'")
        return Response(status: .seeOther, headers: headers)
    }

    /// Percent-encodes all but RFC 3986's unreserved characters, so that no app's query
    /// parser reads a `+`, `&` or `=` of the state differently.
    static func encoded(_ value: String) -> String {
        var encoded = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
