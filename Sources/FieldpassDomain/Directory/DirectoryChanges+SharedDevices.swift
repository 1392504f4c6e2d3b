package import Foundation

/// Shared devices: an admin, or a manager for their teams, enrolls and unenrolls them
/// (``SharedDeviceRules``) and ends their shifts (``ShiftRules``).
extension DirectoryChanges {
    /// A new device awaiting enrollment until `enrollmentExpiresAt`, with the hash of its
    /// one-time code (the code itself is shown once and never stored).
    package func createSharedDevice(
        name: String, teamID: String?, codeHash: String, enrollmentExpiresAt: Date, by caller: DirectoryCaller
    ) async throws -> SharedDeviceRecord {
        try await store.createSharedDevice(
            name: name, teamID: teamID, codeHash: codeHash, enrollmentExpiresAt: enrollmentExpiresAt, by: caller, now: Date())
    }

    package func unenrollSharedDevice(id: String, by caller: DirectoryCaller) async throws {
        try await store.unenrollSharedDevice(id: id, by: caller, now: Date())
    }

    /// Ends the device's open shift (`ended_by_admin`): the shift ended, or `nil` when none was open.
    package func endShift(deviceID: String, by caller: DirectoryCaller) async throws -> ShiftRecord? {
        try await store.endShift(deviceID: deviceID, by: caller, now: Date())
    }
}
