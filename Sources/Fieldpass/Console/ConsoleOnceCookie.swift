import Foundation
import Hummingbird
import Tokens

/// A secret the console shows once, on the page a form's change leads to (post/redirect/get),
/// such as a new shared device's enrollment code. The change's redirect carries it in a
/// cookie sent to that page alone, sealed to the console session; the page shows it and
/// removes the cookie. A reload of the page, or the browser going back to it, finds no
/// secret and changes nothing, where a reload of the form's own answer would send the form
/// again.
///
/// The secret is not stored anywhere else: the browser holds it, as it held the page that
/// showed it, for at most `maxAge` seconds (the secret's own lifetime) if the page is never
/// opened.
struct ConsoleOnceCookie: Sendable {
    static let name = "fieldpass_console_once"

    /// The page's path, under the public URL's path: the only one the cookie is sent to.
    let path: String
    let session: ConsoleCookie

    /// `Set-Cookie` for `secret`, which must be of cookie-safe characters (letters, digits, `-`).
    func set(_ secret: String, maxAge: Int, server: ServerSettings) -> String {
        attributes(value: "\(secret).\(seal(secret))", maxAge: maxAge, server: server)
    }

    /// `Set-Cookie` that removes it.
    func clear(server: ServerSettings) -> String {
        attributes(value: "", maxAge: 0, server: server)
    }

    /// The secret `request` carries, if it was sealed for this page and this session.
    func secret(in request: Request) -> String? {
        guard let value = request.cookies[Self.name]?.value, let dot = value.lastIndex(of: ".") else { return nil }
        let secret = String(value[..<dot])
        let presented = Array(value[value.index(after: dot)...].utf8)
        return Crypto.constantTimeEquals(presented, Array(seal(secret).utf8)) ? secret : nil
    }

    /// Binds the secret to the page and to the session's cookie, which only this browser holds.
    private func seal(_ secret: String) -> String {
        OpaqueToken.digest(["console-once", session.value, path, secret].joined(separator: "\n"))
    }

    private func attributes(value: String, maxAge: Int, server: ServerSettings) -> String {
        let secure = server.isHTTPS ? "; Secure" : ""
        return "\(Self.name)=\(value); Path=\(path); Max-Age=\(maxAge); HttpOnly; SameSite=Strict\(secure)"
    }
}
