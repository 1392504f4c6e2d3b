package import FieldpassDomain
import Foundation

/// A shared device just enrolled by an admin, a manager or the CLI, with its one-time code,
/// which is shown this once: the store keeps only its hash.
package struct SharedDeviceEnrollment: Sendable {
    package let device: SharedDeviceRecord
    package let code: String
}

extension DirectoryChanges {
    /// Enrolls a shared device named `name` (of team `teamID`, if any) for `caller`: a new
    /// code, working for `settings.enrollmentTTL` seconds.
    package func startSharedDeviceEnrollment(
        name: String, teamID: String?, settings: SharedDeviceSettings, by caller: DirectoryCaller
    ) async throws -> SharedDeviceEnrollment {
        let (code, digest) = try EnrollmentCode.make()
        let device = try await createSharedDevice(
            name: name, teamID: teamID, codeHash: digest,
            enrollmentExpiresAt: Date().addingTimeInterval(TimeInterval(settings.enrollmentTTL)), by: caller)
        return SharedDeviceEnrollment(device: device, code: code)
    }
}
