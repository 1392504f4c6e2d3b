import Foundation
import Hummingbird
import Tokens

/// The cookie that ties a confirmed sign-in to the browser that confirmed it.
///
/// The confirmation page sets it with the redirect to the IdP; the store keeps only its
/// digest with the session. `/auth_callback` for a confirmed session finishes the sign-in
/// only when the same browser brings it back: `SameSite=Lax`, because the IdP's redirect
/// is a cross-site top-level GET, and `Path=/auth_callback`, because nothing else needs it.
struct BrowserBinding {
    static let cookieName = "fieldpass_signin"

    let value: String
    var digest: String { OpaqueToken.digest(value) }

    static func make() throws -> BrowserBinding {
        BrowserBinding(value: try OpaqueToken.make())
    }

    /// Lives as long as the session can still be signed in.
    func cookie(expiresAt: Date, secure: Bool) -> String {
        let maxAge = max(1, Int(expiresAt.timeIntervalSinceNow.rounded(.up)))
        return "\(Self.cookieName)=\(value); Path=/auth_callback; Max-Age=\(maxAge); HttpOnly; SameSite=Lax\(secure ? "; Secure" : "")"
    }

    /// Whether `request` comes from the browser that confirmed `session`. A session that
    /// needed no confirmation (`confirm_device: false`) has no binding and passes.
    static func matches(_ request: Request, session: OnboardingSession) -> Bool {
        guard let expected = session.browserBinding else { return true }
        guard let presented = request.cookies[cookieName]?.value, OpaqueToken.isWellFormed(presented) else { return false }
        return Crypto.constantTimeEquals(Array(OpaqueToken.digest(presented).utf8), Array(expected.utf8))
    }
}
