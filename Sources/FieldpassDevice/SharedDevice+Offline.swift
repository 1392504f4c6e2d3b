public import Foundation

extension SharedDevice {
    /// A worker takes the device over with no network: their badge and PIN, checked on the
    /// device against the offline permit kept from their last online badge sign-in here. The
    /// permit must be Fieldpass's (signed with a key the device keeps), unexpired at `now`,
    /// bound to this device's key, and not locked by wrong PINs.
    ///
    /// The offline shift before ends, and the online shift's tokens are forgotten, as when the
    /// next worker signs in online: the new shift has no token, and its worker sees only what
    /// the app already holds. Throws ``OfflineSignInError``; each wrong PIN is counted and
    /// reported to Fieldpass later.
    public func signInOffline(badge: String, pin: String, now: Date = Date()) async throws -> OfflineShift {
        guard let offline else { throw OfflineSignInError.noPermit }
        return try await offline.signIn(badge: badge, pin: pin, now: now)
    }

    /// The worker of the running offline shift signs out at `now`; nothing changes when none runs.
    /// The shift stays on the device until ``reconcileOfflineShifts()`` has reported it.
    public func endOfflineShift(now: Date = Date()) async throws {
        try await offline?.endRunning(at: now)
    }

    /// The offline shift running on the device, `nil` when none is.
    public var currentOfflineShift: OfflineShift? {
        get throws { try offline?.running }
    }

    /// Once back online: reports the device's offline shifts to Fieldpass, in order, and what
    /// becomes of each. The running one, accepted, becomes a real shift: its tokens are kept in
    /// the device's ``TokenStore`` for ``client``, and the worker goes on online. Refused, it is
    /// over: wipe what its worker left. Reported shifts leave the device once Fieldpass has
    /// answered; after a failure, call again. Offline sign-ins wait while this runs.
    ///
    /// Throws ``FieldpassClientError/notEnrolled`` once the device is unenrolled, and then
    /// forgets every permit and offline shift: they are worth nothing anymore.
    public func reconcileOfflineShifts() async throws -> OfflineReconciliation {
        guard let offline else { return OfflineReconciliation(shifts: []) }
        return try await offline.reconcile()
    }

    /// Once back online: drops the permits Fieldpass has withdrawn (a badge revoked or replaced,
    /// a person disabled), so that their workers no longer sign in offline, and refreshes
    /// Fieldpass's signing keys. Reconcile first: a withdrawn permit's running shift is refused
    /// there with its reason. Throws ``FieldpassClientError/notEnrolled`` as
    /// ``reconcileOfflineShifts()`` does.
    public func refreshOfflinePermits() async throws {
        try await offline?.refreshPermits()
    }

    /// Keeps `permit` as an online badge sign-in does, with `jwks` as Fieldpass's keys: for
    /// tests that sign their own permits, with no server.
    package func keepOfflinePermit(_ permit: String, badge: String, pin: String, jwks: Data) async throws {
        guard let offline else { return }
        guard let keys = KeptKeySet.decoding(jwks, fetchedAt: Date()) else { throw OfflineSignInError.invalidPermit }
        try await offline.keep(permit: permit, badge: badge, pin: pin, keys: keys, now: Date())
    }
}
