import Foundation

/// What each step of a session's life moves, counts and stores.
extension SessionRules {
    /// A sign-in callback takes its session, which goes on to the exchange of the code.
    package static func callback(state: String, now: Double) -> SessionMove {
        SessionMove(.callback(state: state), at: now, by: exchange, counting: [], storing: [])
    }

    /// The sweep's expiry (``SessionSweepStep/expireOverdue(now:)``): every session past its
    /// expiry and still under way ends, counted as an expired onboarding, with `session_expired`.
    package static func overdueExpiry(now: Double) -> SessionMove {
        SessionMove(.overdue, at: now, by: expiry, counting: [.expired], storing: [.sessionExpired])
    }

    /// An identity reset (``DirectoryWrite/expireSignIns(userID:)``): the person's sign-ins under
    /// way end with `session_expired`; their onboarding did not run out, so none is counted.
    package static func signInsEnded(userID: String, now: Double) -> SessionMove {
        SessionMove(.person(userID: userID), at: now, by: expiry, counting: [], storing: [.sessionExpired])
    }

    /// The person's realm was filled: each of their signed-in sessions still running completes
    /// with `data_ready`.
    package static func realmFilled(userID: String, announcedRealm: String, now: Double) -> SessionMove {
        SessionMove(
            .unexpiredOfPerson(userID: userID), at: now, by: dataReady, counting: [.dataReady],
            storing: [.dataReady(realmPath: announcedRealm)]
        )
    }

    /// A sign-in that ended in an error fails its session, even one expiring meanwhile, counted
    /// with the error's reason, with `login_failed`.
    package static func failing(sessionID: String, _ loginFailure: LoginFailure, now: Double) -> SessionMove {
        SessionMove(
            .session(id: sessionID), at: now, by: failure, counting: [.failed], reason: LoginFailureReason.label(loginFailure.error),
            storing: [.loginFailed(error: loginFailure.error, description: loginFailure.description)]
        )
    }

    /// What a refused sign-in adds to the audit log (a refused attack), for the session's
    /// person and device; `nil` for an ordinary failure.
    package static func failureAudit(_ loginFailure: LoginFailure, userID: String, deviceID: String) -> AuditRecord? {
        loginFailure.audited ? .loginFailed(error: loginFailure.error, userID: userID, deviceID: deviceID) : nil
    }

    /// A completed sign-in, once the store read whether its realm is filled: the session signs
    /// in while it has not expired (the sweep may have expired it while the IdP was answering),
    /// and completes at once when the realm is filled; the device's live refresh tokens are
    /// revoked, superseded by the new one.
    package static func signingIn(_ login: CompletedLogin, announcedRealm: String, realmInitialized: Bool, now: Double) -> SignInPlan {
        let session = login.session
        return SignInPlan(
            move: SessionMove(
                .unexpiredSession(id: session.id), at: now, by: realmInitialized ? signIn.then(dataReady) : signIn,
                counting: realmInitialized ? [.signedIn, .dataReady] : [.signedIn],
                storing: signInEvents(login, announcedRealm: announcedRealm, realmInitialized: realmInitialized)
            ),
            superseded: SupersededRefreshTokens(deviceID: session.deviceID, at: now),
            refreshToken: RefreshTokenIssue(
                hash: login.refreshTokenHash, userID: session.userID, deviceID: session.deviceID,
                expiresAt: login.refreshTokenExpiresAt.timeIntervalSince1970,
                maxExpiresAt: login.refreshTokenMaxExpiresAt.timeIntervalSince1970, dpopThumbprint: session.dpopThumbprint
            )
        )
    }

    /// Marking a realm initialized, from its row: refused (`nil`) when a caller bound to
    /// another environment asks; otherwise the realm is marked once (and shows again in the
    /// integration feed) and its person's signed-in sessions complete.
    package static func realmInitialization(
        _ realm: RealmFacts, askedIn environmentID: String?, announcedRealm: String, now: Double
    ) -> RealmInitializationPlan? {
        guard environmentID == nil || realm.environmentID == environmentID else { return nil }
        return RealmInitializationPlan(
            marksRealm: !realm.initialized, move: realmFilled(userID: realm.userID, announcedRealm: announcedRealm, now: now)
        )
    }
}
