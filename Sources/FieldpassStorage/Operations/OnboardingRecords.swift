import FieldpassDomain
import Foundation

// The records of onboarding, session events and the feeds, decoded once for both stores
// (``StoredRow``).

extension OnboardingSession {
    /// A row of ``OnboardingStatements/sessionColumns``.
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), userID: try row.column("user_id"), deviceID: try row.column("device_id"),
            environmentID: try row.column("environment_id"), email: try row.column("email"), role: try row.column("role"),
            nonce: try row.column("nonce"), codeVerifier: try row.column("code_verifier"),
            status: OnboardingSession.Status(rawValue: try row.column("status")) ?? .failed,
            expiresAt: Date(timeIntervalSince1970: try row.column("expires_at")), confirmsDevice: try row.column("confirms_device"),
            browserBinding: try row.column("browser_binding"),
            appReturn: AppReturnColumns.appReturn(uri: try row.column("app_redirect_uri"), state: try row.column("app_state")),
            dpopThumbprint: try row.column("dpop_jkt"))
    }
}

extension ConfirmationRules.Session {
    /// A row of ``OnboardingStatements/confirmation``.
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), state: try row.column("state"), status: OnboardingSession.Status(rawValue: try row.column("status")),
            csrfToken: try row.column("csrf_token"), confirmedAt: try row.column("confirmed_at"), expiresAt: try row.column("expires_at"))
    }
}

extension StoredEvent {
    init(row: some StoredRow) throws {
        self.init(
            rowID: try row.column("id"), sessionID: try row.column("session_id"), seq: try row.column("seq"),
            event: try SessionEvent(storedForm: try row.column("frame")), storedAt: try row.column("created_at"))
    }
}

extension UnconfirmedUserRules.Candidate {
    init(row: some StoredRow) throws {
        self.init(
            id: try row.column("id"), role: try row.column("role"), disabled: try row.column("disabled"),
            lastRegisteredAt: try row.column("last_registered_at"), hasRunningSession: try row.column("running"),
            inTeam: try row.column("in_team"), hasGrant: try row.column("has_grant"))
    }
}

extension RealmFacts {
    init(row: some StoredRow) throws {
        self.init(
            userID: try row.column("user_id"), environmentID: try row.column("environment_id"), initialized: try row.column("initialized"))
    }
}

extension RealmFeedEntry {
    init(row: some StoredRow) throws {
        self.init(
            feedSeq: try row.column("feed_seq"), realmPath: try row.column("path"), userID: try row.column("user_id"),
            email: try row.column("email"), initialized: try row.column("initialized"), signedIn: try row.column("signed_in"),
            createdAt: Date(timeIntervalSince1970: try row.column("created_at")))
    }
}

extension LifecycleFeedEntry {
    init(row: some StoredRow) throws {
        self.init(
            position: try row.column("position"), environmentID: try row.column("environment_id"),
            at: Date(timeIntervalSince1970: try row.column("at")),
            event: try JSONDecoder().decode(LifecycleEvent.self, from: Data(try row.column("body", as: String.self).utf8)))
    }
}
