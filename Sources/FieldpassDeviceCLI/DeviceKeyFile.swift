import CommandLineSupport
import FieldpassDevice
import Foundation

/// A device's DPoP key in a PEM file of mode 0600, kept by the app library
/// (``FileDPoPKeyStore``), as `fieldpass onboard --dpop-key` and `fieldpass tablet` keep theirs.
enum DeviceKeyFile {
    /// The key in the file at `path`, made when there is none. A file that cannot be used fails
    /// saying why, then `remedy`, what the person does about it.
    static func loadOrCreate(_ path: String, remedy: String) async throws -> SoftwareDPoPKey {
        do {
            return try await FileDPoPKeyStore(path: path).loadOrCreate()
        } catch FieldpassClientError.unsafeTokenFile(let path, let problem) {
            throw CommandFailure("not using the DPoP key file \(path): \(problem); \(remedy)")
        } catch DPoPKeyError.unreadableKeyFile(let path) {
            throw CommandFailure("\(path) holds no P-256 private key in PEM; \(remedy)")
        } catch let error as POSIXError {
            throw CommandFailure("cannot keep the DPoP key in \(path): \(error.code)")
        }
    }
}
