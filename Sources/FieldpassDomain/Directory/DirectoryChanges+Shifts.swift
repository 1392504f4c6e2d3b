package import Foundation

/// A shared device's own changes, each proven by the device's key (DPoP): enrolling with its
/// one-time code, a worker's badge sign-in that starts a shift, and the device ending the
/// shift. The device acts for no person, so no ``DirectoryCaller`` names it: its proof does,
/// and ``SharedDeviceRules`` says, of the device as each transaction reads it, whether it acts.
extension DirectoryChanges {
    /// The device whose key proved the request, enrolled with the code whose hash is `codeHash`;
    /// a wrong, used or expired code throws ``EnrollmentRefused``.
    package func enrollSharedDevice(codeHash: String, proof: DPoPRules.AcceptedProof) async throws -> SharedDeviceRecord {
        try await store.enrollSharedDevice(codeHash: codeHash, proof: proof, now: Date())
    }

    /// Starts a worker's shift on the device with badge and PIN, in three steps:
    /// - a key that is no acting shared device's is refused before its PIN costs anything (a key
    ///   anyone can make costs no hash); `admit` then takes the device's and the badge's tries
    ///   from their limits;
    /// - the PIN is checked against the badge's stored hash outside any transaction, in the
    ///   device's environment's turn on `hasher` (a slow hash holds no lock, and one company's
    ///   tries never take another's turn);
    /// - the store's transaction finds the badge, its person and the device as they are now and
    ///   lets ``BadgeRules`` decide on the `attempt` made with the PIN as it was checked.
    /// Answers the outcome and, for a sign-in that went on to the PIN, the device's environment.
    package func signInWithBadge(
        badgeHash: String, pin: String, newPin: String?, proof: DPoPRules.AcceptedProof, hasher: some PinHashing,
        admit: (SharedDeviceRecord) throws -> Void, attempt: (PinCheck) -> BadgeAttempt
    ) async throws -> (outcome: BadgeOutcome, environmentID: String?) {
        guard let device = SharedDeviceRules.acting(try await store.sharedDevice(keyThumbprint: proof.thumbprint)) else {
            return (.refused, nil)
        }
        try admit(device)
        let now = Date()
        let badge = try await store.badge(hash: badgeHash)
        let checked = try await PinCheck.check(pin, newPin: newPin, badge: badge, environmentID: device.environmentID, on: hasher)
        return (try await store.signInWithBadge(attempt(checked), now: now), device.environmentID)
    }

    /// Ends the device's open shift (`signed_out`): the shift ended, or `nil` when none was
    /// open. A key that is no enrolled device's throws ``DirectoryError/unknownDevice``.
    package func endShift(provenBy proof: DPoPRules.AcceptedProof) async throws -> ShiftRecord? {
        try await store.endShift(provenBy: proof, now: Date())
    }

    /// Reconciles the shifts the device whose key made `proof` reports from offline
    /// (``OfflineShiftRules``), in order: one result per entry.
    package func reconcileOfflineShifts(
        _ reports: [OfflineShiftReport], proof: DPoPRules.AcceptedProof, running: RunningOfflineShift, maxFailedPins: Int,
        skew: TimeInterval
    ) async throws -> [OfflineShiftResult] {
        try await store.reconcileOfflineShifts(
            reports, proof: proof, running: running, maxFailedPins: maxFailedPins, skew: skew, now: Date())
    }
}
