import FieldpassDomain
import Foundation

/// The steps of a device's onboarding that several operations take, each read or written one
/// way for both stores.
extension StoreTransaction {
    func session(id: String) async throws -> OnboardingSession? {
        try await first(OnboardingStatements.session, id).map(OnboardingSession.init(row:))
    }

    /// The device `registration` signs in (``RegisteredDevice``): the person's live device of
    /// its installation, or a new one. Callers hold the person's lock.
    func registeredDeviceID(_ registration: DeviceRegistration, personID: String, personCreated: Bool) async throws -> String {
        let device = RegisteredDevice.of(registration, newID: UUID().uuidString.lowercased())
        var live: String?
        if let installation = device.installationToFind(personCreated: personCreated) {
            live = try await value(OnboardingStatements.liveDevice, personID, installation, as: String.self)
        }
        return device.id(live: live)
    }

    /// Takes the state of a waiting session (``SessionRules/callback(state:now:)``) and reads the
    /// session taken; `nil` when none waited with it.
    func consume(state: String, now: Date) async throws -> OnboardingSession? {
        let taken = try await apply(SessionRules.callback(state: state, now: now.timeIntervalSince1970))
        guard let moved = taken.moved.first else { return nil }
        return try await session(id: moved.id)
    }

    /// Fails the session, auditing a refused attack; returns the events stored.
    func fail(sessionID: String, _ failure: LoginFailure, now: Date) async throws -> [StoredEvent] {
        let failed = try await apply(SessionRules.failing(sessionID: sessionID, failure, now: now.timeIntervalSince1970))
        for session in failed.moved {
            guard let entry = SessionRules.failureAudit(failure, userID: session.userID, deviceID: session.deviceID) else { continue }
            try await audit(entry, environmentID: session.environmentID, now: now)
        }
        return failed.events
    }

    /// Revokes the device's earlier refresh tokens and marks it signed in, the first time;
    /// its `name`, `platform` and `signed_in_before`, or `nil` when it is gone. The person's
    /// lock, taken first, keeps two sign-ins of one device from both finding it new.
    func markSignedIn(superseding tokens: SupersededRefreshTokens, now: Double) async throws -> Row? {
        try await execute(RefreshTokenStatements.revokeSuperseded, tokens.at, tokens.deviceID)
        guard let device = try await first(OnboardingStatements.deviceSignIn, tokens.deviceID) else { return nil }
        try await execute(OnboardingStatements.markSignedIn, now, tokens.deviceID)
        return device
    }
}
