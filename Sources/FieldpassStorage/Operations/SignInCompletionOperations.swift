public import FieldpassDomain
public import Foundation

/// The end of a sign-in at the IdP: completed (``SessionRules/signingIn(_:announcedRealm:realmInitialized:now:)``)
/// or failed (``SessionRules/failing(sessionID:_:now:)``).
extension TransactionalStore {
    /// Locks the person first, as every change to a person's devices and tokens does.
    public func completeLogin(_ login: CompletedLogin, now: Date) async throws -> [StoredEvent] {
        let session = login.session
        let announced = realmPrefixes.outward(session.realmPath, environmentID: session.environmentID)
        let events = try await writing { transaction -> [StoredEvent] in
            let timestamp = now.timeIntervalSince1970
            try await transaction.lock(.users, by: UserStatements.holder, session.userID)
            let initialized = try await transaction.value(RealmFeedStatements.initializedForSignIn, session.realmPath, as: Bool.self)
            let plan = SessionRules.signingIn(login, announcedRealm: announced, realmInitialized: initialized ?? false, now: timestamp)
            let signedIn = try await transaction.apply(plan.move)
            // The sweeper may have expired the session while the IdP was answering.
            guard !signedIn.moved.isEmpty else { return [] }
            guard let device = try await transaction.markSignedIn(superseding: plan.superseded, now: timestamp) else {
                throw StoreInconsistency("the session's device \(session.deviceID) is gone")
            }
            let audit = DeviceActivityAudit.signIn(
                userID: session.userID, deviceID: session.deviceID, name: try device.column("name"),
                platform: try device.column("platform"), signedInBefore: try device.column("signed_in_before"))
            if !audit.isEmpty { try await transaction.audit(audit, environmentID: session.environmentID, now: now) }
            try await transaction.issue(plan.refreshToken, now: timestamp)
            if let shift = login.shift { try await transaction.startShift(shift, environmentID: session.environmentID, now: now) }
            return signedIn.events
        }
        await announce(events)
        // The shift before on the device ended: its access tokens count as revoked here once this is answered.
        if login.shift != nil { await revocationsCaughtUp() }
        return events
    }

    public func failLogin(sessionID: String, error: String, description: String, audited: Bool, now: Date) async throws -> [StoredEvent] {
        let failure = LoginFailure(error: error, description: description, audited: audited)
        let events = try await writing { transaction in try await transaction.fail(sessionID: sessionID, failure, now: now) }
        await announce(events)
        return events
    }
}
