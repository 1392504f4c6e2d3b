public import Foundation

/// Shared devices: an admin, or a manager for their teams, enrolls and unenrolls them
/// (``SharedDeviceRules``).
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
}
