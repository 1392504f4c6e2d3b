public import FieldpassDomain
public import Foundation

/// A device's onboarding up to its return from the IdP: its registration, and the callback
/// taking its state (``SessionRules``).
extension TransactionalStore {
    /// Locks the person (created with their personal realm when new): registrations and
    /// sign-ins of one person run one after another. The realm feed may have a new realm.
    public func registerDevice(_ registration: DeviceRegistration) async throws -> OnboardingSession {
        try await writingGrouped(announcing: .realms) { transaction in
            let now = registration.now.timeIntervalSince1970
            try await transaction.takeProof(registration.dpopProof)
            let person = try await transaction.findOrCreateUser(
                email: registration.email, environmentID: registration.environmentID, now: registration.now, actor: "device")
            let role = try await transaction.value(OnboardingStatements.role, person.id, as: String.self) ?? Role.worker.rawValue
            let deviceID = try await transaction.registeredDeviceID(registration, personID: person.id, personCreated: person.created)
            // A reused installation's device keeps its last_seen_at: an install_id is no secret,
            // so only a sign-in or a refresh says the device was seen.
            try await transaction.execute(
                OnboardingStatements.insertDevice, deviceID, person.id, registration.deviceName, registration.platform,
                registration.installID, now)
            try await transaction.execute(
                OnboardingStatements.insertSession, registration.sessionID, person.id, deviceID, registration.environmentID,
                registration.email, registration.state, registration.nonce, registration.codeVerifier, registration.userCode,
                registration.confirmation?.loginID, registration.confirmation?.csrfToken, SessionRules.registered.rawValue, now,
                registration.expiresAt.timeIntervalSince1970, registration.appReturn?.uri, registration.appReturn?.state,
                registration.dpopThumbprint)
            try await transaction.execute(
                OnboardingStatements.countOutcome, registration.environmentID, OnboardingOutcome.registered.rawValue, nil, now)
            return registration.pendingSession(userID: person.id, deviceID: deviceID, role: role)
        }
    }

    public func consumeState(_ state: String, now: Date) async throws -> OnboardingSession? {
        try await writing { transaction in try await transaction.consume(state: state, now: now) }
    }

    /// One transaction, so one WAL flush where taking the state and failing the session on
    /// their own would wait for two; shared with the writes that arrive with it, as a
    /// registration's is, so that callbacks refused together share their commit too.
    public func refuseState(
        _ state: String, now: Date, failure: @escaping @Sendable (OnboardingSession) -> LoginFailure
    ) async throws -> RefusedSignIn? {
        let refused = try await writingGrouped(announcing: nil) { transaction -> RefusedSignIn? in
            guard let session = try await transaction.consume(state: state, now: now) else { return nil }
            let decided = failure(session)
            let events = try await transaction.fail(sessionID: session.id, decided, now: now)
            return RefusedSignIn(session: session, failure: decided, events: events)
        }
        if let refused { await announce(refused.events) }
        return refused
    }

    public func expiredAppReturn(state: String, now: Date) async throws -> AppReturn? {
        try await reading { transaction in
            try await transaction.first(OnboardingStatements.expiredAppReturn, state, now.timeIntervalSince1970).flatMap {
                AppReturnColumns.appReturn(uri: try $0.column("app_redirect_uri"), state: try $0.column("app_state"))
            }
        }
    }

    public func session(id: String) async throws -> OnboardingSession? {
        try await reading { transaction in try await transaction.session(id: id) }
    }
}
