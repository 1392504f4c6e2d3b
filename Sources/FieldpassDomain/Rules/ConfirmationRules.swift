import Tokens

/// The confirmation page's POST: it confirms a session once, while it is still waiting for
/// its browser, and only with the page's own anti-forgery token.
package enum ConfirmationRules {
    /// The session's row as far as confirming needs it.
    package struct Session: Sendable, Equatable {
        package var id: String
        package var state: String
        package var status: OnboardingSession.Status?
        package var csrfToken: String
        package var confirmedAt: Double?
        package var expiresAt: Double

        package init(
            id: String, state: String, status: OnboardingSession.Status?, csrfToken: String, confirmedAt: Double?, expiresAt: Double
        ) {
            self.id = id
            self.state = state
            self.status = status
            self.csrfToken = csrfToken
            self.confirmedAt = confirmedAt
            self.expiresAt = expiresAt
        }
    }

    /// What the store does.
    package enum Decision: Sendable, Equatable {
        case unknown
        /// Confirmed, signed in, failed or expired already.
        case used
        /// The form's token is not the page's.
        case forged
        /// Record the confirmation and the browser's binding, then send the browser on with `state`.
        case confirm(sessionID: String, state: String)
    }

    /// Whether the page may still confirm: registered, unconfirmed, not expired.
    package static func isUsable(_ session: Session, now: Double) -> Bool {
        session.status == SessionRules.registered && session.confirmedAt == nil && session.expiresAt > now
    }

    package static func decide(_ session: Session?, csrfToken: String, now: Double) -> Decision {
        guard let session else { return .unknown }
        guard isUsable(session, now: now) else { return .used }
        guard Crypto.constantTimeEquals(Array(csrfToken.utf8), Array(session.csrfToken.utf8)) else { return .forged }
        return .confirm(sessionID: session.id, state: session.state)
    }
}
