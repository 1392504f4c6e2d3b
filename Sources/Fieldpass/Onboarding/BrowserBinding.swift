import FieldpassDomain
import Foundation
import Hummingbird
import Tokens

/// The cookie that ties a confirmed sign-in to the browser that confirmed it.
///
/// The confirmation page sets it with the redirect to the IdP; the store keeps only its
/// digest with the session. `/auth_callback` for a confirmed session finishes the sign-in
/// only when the same browser brings it back: `SameSite=Lax`, because the IdP's redirect
/// is a cross-site top-level GET, and a path of `/auth_callback`, because nothing else needs
/// it. Each sign-in has a cookie of its own, named after its state, so two sign-ins started in
/// one browser do not overwrite each other's.
struct BrowserBinding {
    static let cookiePrefix = "fieldpass_signin_"

    let value: String
    var digest: String { OpaqueToken.digest(value) }

    static func make() throws -> BrowserBinding {
        BrowserBinding(value: try OpaqueToken.make())
    }

    /// The cookie's name for the sign-in whose state is `state` (a digest: the name says nothing of the state).
    static func cookieName(state: String) -> String {
        cookiePrefix + OpaqueToken.digest(state).prefix(16)
    }

    /// Lives as long as the session can still be signed in.
    func cookie(state: String, expiresAt: Date, server: ServerSettings) -> String {
        let maxAge = max(1, Int(expiresAt.timeIntervalSinceNow.rounded(.up)))
        let secure = server.isHTTPS ? "; Secure" : ""
        return
            "\(Self.cookieName(state: state))=\(value); Path=\(server.publicPath)/auth_callback; Max-Age=\(maxAge); HttpOnly; SameSite=Lax\(secure)"
    }

    /// Whether `request`, the callback with `state`, comes from the browser that confirmed
    /// `session`. A session registered without the page (`confirm_device: false`) passes; one
    /// registered with it and holding no binding (confirmed by an older version) does not.
    static func matches(_ request: Request, state: String, session: OnboardingSession) -> Bool {
        guard session.confirmsDevice else { return true }
        guard let expected = session.browserBinding else { return false }
        return matches(request, state: state, digest: expected)
    }

    /// Whether `request` brings the cookie of the sign-in with `state` whose digest is `digest`.
    static func matches(_ request: Request, state: String, digest: String) -> Bool {
        guard let presented = request.cookies[cookieName(state: state)]?.value, OpaqueToken.isWellFormed(presented) else {
            return false
        }
        return Crypto.constantTimeEquals(Array(OpaqueToken.digest(presented).utf8), Array(digest.utf8))
    }
}
