/// The life of an onboarding session: its states, and the events each step stores for the
/// device, in order.
package enum SessionRules {
    /// A new registration's state: waiting for the browser.
    package static let registered = OnboardingSession.Status.pending
    /// Still running: waiting for the browser, the IdP or the realm's data.
    package static let unfinished: [OnboardingSession.Status] = [.pending, .exchanging, .authenticated]

    /// The callback took the state; the code is being exchanged.
    package static let exchange = SessionTransition(from: [.pending], to: .exchanging)
    /// The tokens were issued.
    package static let signIn = SessionTransition(from: [.exchanging], to: .authenticated)
    /// The realm's data is there.
    package static let dataReady = SessionTransition(from: [.authenticated], to: .completed)
    /// The sign-in ended in an error (at the IdP, at the callback, or refused here).
    package static let failure = SessionTransition(from: [.pending, .exchanging], to: .failed)
    /// Its time ran out, or an identity reset ended it.
    package static let expiry = SessionTransition(from: unfinished, to: .expired)

    /// The type of the events that carry tokens: deleted once their session has ended, so
    /// no token outlives the sign-in it was issued for in the store.
    package static let tokenEventType = "token"

    /// A completed sign-in's events: the tokens, the realm, and `data_ready` at once when the
    /// backend filled the realm already (then the session moves on by ``dataReady``).
    package static func signInEvents(_ login: CompletedLogin, announcedRealm: String, realmInitialized: Bool) -> [SessionEvent] {
        var events: [SessionEvent] = [
            .token(accessToken: login.accessToken, refreshToken: login.refreshToken, expiresIn: login.accessTokenTTL),
            .realmInitialized(realmPath: announcedRealm),
        ]
        if realmInitialized { events.append(.dataReady(realmPath: announcedRealm)) }
        return events
    }
}
