import Foundation
import Hummingbird
import Tokens

/// The console session's cookie. The browser holds the only copy of its value; the store
/// keeps its hash, and each form's anti-CSRF token is derived from it, so a token is bound
/// to one session and a stolen database row gives neither.
struct ConsoleCookie: Sendable {
    static let name = "fieldpass_console"

    let value: String

    static func make() throws -> ConsoleCookie { ConsoleCookie(value: try OpaqueToken.make()) }

    /// The value a request presents, if it looks like one of ours.
    static func presented(in request: Request) -> ConsoleCookie? {
        guard let value = request.cookies[name]?.value, OpaqueToken.isWellFormed(value) else { return nil }
        return ConsoleCookie(value: value)
    }

    /// What the store keeps.
    var idHash: String { OpaqueToken.digest(value) }

    /// The anti-CSRF token every form of this session carries.
    var formToken: String { OpaqueToken.digest("console-form:" + value) }

    /// Whether `presented` is this session's form token (compared in constant time).
    func acceptsForm(token presented: String?) -> Bool {
        guard let presented else { return false }
        return Crypto.constantTimeEquals(Array(presented.utf8), Array(formToken.utf8))
    }

    /// Sent only to the console's own pages; `Lax` so that the IdP's redirect back, a
    /// top-level GET, may land there signed in, while other sites' POSTs go without it.
    func setCookie(maxAge: Int, server: ServerSettings) -> String {
        Self.attributes(value: value, maxAge: maxAge, server: server)
    }

    /// Removes the cookie from the browser.
    static func clearCookie(server: ServerSettings) -> String {
        attributes(value: "", maxAge: 0, server: server)
    }

    private static func attributes(value: String, maxAge: Int, server: ServerSettings) -> String {
        let secure = server.isHTTPS ? "; Secure" : ""
        return "\(name)=\(value); Path=\(server.publicPath)/console; Max-Age=\(maxAge); HttpOnly; SameSite=Lax\(secure)"
    }
}
