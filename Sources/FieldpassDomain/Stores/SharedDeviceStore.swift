public import Foundation

/// Devices a crew shares: enrolled by an admin or a team's manager, then by the device with
/// its key (``SharedDeviceRules``). Each change is one transaction with its audit entry; the
/// caller's standing and the device's team are read inside it. Everything is scoped to one
/// environment; another environment's device is unknown.
public protocol SharedDeviceStore: Sendable {
    /// Stores a new device awaiting enrollment with the hash of its code. `teamID`, when
    /// given, must name a team of the environment (`DirectoryError.unknownTeam`) that the
    /// caller looks after (`notAllowed`).
    func createSharedDevice(
        name: String, teamID: String?, codeHash: String, enrollmentExpiresAt: Date, by caller: DirectoryCaller, now: Date
    ) async throws -> SharedDeviceRecord

    /// The devices the caller may see (a manager: those of their teams), oldest first.
    func sharedDevices(visibleTo caller: DirectoryCaller) async throws -> [SharedDeviceRecord]

    /// One device the caller may see; `nil` for one they may not, or of another environment.
    func sharedDevice(id: String, visibleTo caller: DirectoryCaller) async throws -> SharedDeviceRecord?

    /// Enrolls the device whose code hashes to `codeHash`, of whichever environment, with the
    /// key the device proved, recording the proof's use in the same transaction (one used
    /// before throws ``DPoPRefusal``). A refused code or key throws ``EnrollmentRefused`` and
    /// writes nothing. A key enrolls one device, ever.
    func enrollSharedDevice(codeHash: String, proof: DPoPRules.AcceptedProof, now: Date) async throws -> SharedDeviceRecord

    /// Unenrolls the device: its key is refused from then on. One the caller does not look
    /// after, or of another environment: `DirectoryError.unknownDevice`.
    func unenrollSharedDevice(id: String, by caller: DirectoryCaller, now: Date) async throws

    /// The device that enrolled with the key, of whichever environment, unenrolled or not.
    func sharedDevice(keyThumbprint: String) async throws -> SharedDeviceRecord?

    /// The worker on the device whose key made `proof` ends their shift (`signed_out`),
    /// recording the proof's use in the same transaction. Answers the shift ended, `nil` when
    /// none was open; a key that is no enrolled device's throws `DirectoryError.unknownDevice`.
    func endShift(provenBy proof: DPoPRules.AcceptedProof, now: Date) async throws -> ShiftRecord?

    /// An admin, or the device's team's manager, ends its open shift (`ended_by_admin`).
    /// Answers the shift ended, `nil` when none was open; a device the caller does not look
    /// after, or of another environment: `DirectoryError.unknownDevice`.
    func endShift(deviceID: String, by caller: DirectoryCaller, now: Date) async throws -> ShiftRecord?

    /// The device's shifts, latest first, at most `limit`; `nil` for a device the caller may
    /// not see.
    func shifts(deviceID: String, visibleTo caller: DirectoryCaller, limit: Int) async throws -> [ShiftRecord]?

    /// A person's shifts on the environment's devices, latest first, at most `limit`.
    func shifts(userID: String, environmentID: String, limit: Int) async throws -> [ShiftRecord]

    /// The open shift of the device with the key, `nil` when nobody holds it; a key that is no
    /// enrolled device's throws `DirectoryError.unknownDevice`.
    func openShift(keyThumbprint: String) async throws -> ShiftRecord?

    /// The events of the device with the key, after `after`, oldest first, at most `limit`;
    /// `nil` for a key that is no enrolled device's.
    func shiftEvents(keyThumbprint: String, after: Int, limit: Int) async throws -> [ShiftEvent]?

    /// Ends the open shifts past a limit at `now` (``ShiftLimits``), at most `limit` of them
    /// (the sweep comes back for the rest); answers how many ended.
    func endOverdueShifts(limits: ShiftLimits, now: Date, limit: Int) async throws -> Int

    /// The offline permits of the device with the key that it keeps at `now`, each person's
    /// latest that is unexpired, not withdrawn, of a person not disabled whose badge still
    /// works, oldest first. A key that is no enrolled device's throws `DirectoryError.unknownDevice`.
    func offlinePermits(keyThumbprint: String, now: Date) async throws -> [OfflinePermitRecord]

    /// The people whose offline permits the device holds at `now`, each by their latest unexpired
    /// one, withdrawn or not (a thief keeps both), most lasting first; `nil` for a device the
    /// caller may not see. Unenrolling the device ends none: its permits expire.
    func offlinePermitHolders(deviceID: String, visibleTo caller: DirectoryCaller, now: Date) async throws -> [OfflinePermitHolder]?

    /// Reconciles what the device whose key made `proof` did offline, in one transaction that
    /// records the proof's use (``OfflineShiftRules``): one result per entry, in order. A key
    /// that is no enrolled device's throws `DirectoryError.unknownDevice` and changes nothing.
    func reconcileOfflineShifts(
        _ reports: [OfflineShiftReport], proof: DPoPRules.AcceptedProof, running: RunningOfflineShift, maxFailedPins: Int,
        skew: TimeInterval, now: Date
    ) async throws -> [OfflineShiftResult]
}
