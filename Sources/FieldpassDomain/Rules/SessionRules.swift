/// The life of an onboarding session: its states, and the events each step stores for the
/// device, in order.
package enum SessionRules {
    /// A new registration's state: waiting for the browser.
    package static let registered = OnboardingSession.Status.pending
    /// Still running: waiting for the browser, the IdP or the realm's data.
    package static let unfinished: [OnboardingSession.Status] = [.pending, .exchanging, .authenticated]
    /// Its terminal event is stored (the last event it will have): the session waits only for
    /// the device to acknowledge it.
    package static let finished: [OnboardingSession.Status] = [.completed, .failed, .expired]

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

    /// Delivered means received: a finished session ends (its token event purged) when the
    /// device asks for the events after one at or past its terminal event, which it does only
    /// once it has them all. Until then a repeated request with an older `after` gets the same
    /// events again, token included, so an answer lost on the way costs nothing. A device
    /// that never acknowledges is covered by the grace (``SessionSweepStep``). Stores apply
    /// this as a conditional update: `status IN finished AND last_seq <= after`.
    package static func acknowledges(after: Int, lastSeq: Int, status: OnboardingSession.Status) -> Bool {
        finished.contains(status) && lastSeq <= after
    }

    /// A device's request for the events after `after` ends its session when it acknowledges
    /// the terminal event (``acknowledges(after:lastSeq:status:)``); `nil` otherwise.
    package static func acknowledgement(
        sessionID: String, after: Int, lastSeq: Int, status: OnboardingSession.Status, now: Double
    ) -> SessionEnd? {
        acknowledges(after: after, lastSeq: lastSeq, status: status) ? SessionEnd(sessionID: sessionID, at: now) : nil
    }

    /// A completed sign-in's events: the tokens, the realm, and `data_ready` at once when the
    /// backend filled the realm already (then the session moves on by ``dataReady``).
    package static func signInEvents(_ login: CompletedLogin, announcedRealm: String, realmInitialized: Bool) -> [SessionEvent] {
        var events: [SessionEvent] = [
            .token(
                accessToken: login.accessToken, refreshToken: login.refreshToken, expiresIn: login.accessTokenTTL,
                tokenType: login.accessTokenType),
            .realmInitialized(realmPath: announcedRealm),
        ]
        if realmInitialized { events.append(.dataReady(realmPath: announcedRealm)) }
        return events
    }
}
