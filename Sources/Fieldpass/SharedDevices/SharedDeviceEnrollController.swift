import FieldpassDomain
import Foundation
import Hummingbird

/// `POST /shared_devices/enroll`: a shared device redeems its one-time code with a DPoP proof
/// (RFC 9449), whose key becomes the device's identity. A wrong, used or expired code is
/// `400 invalid_grant`, one answer for all, behind the same per-address rate limit as a
/// registration.
struct SharedDeviceEnrollController: Sendable {
    static let path = "/shared_devices/enroll"

    let changes: DirectoryChanges
    let dpop: DPoPGate

    struct Enrollment: Decodable {
        var enrollmentCode: String

        enum CodingKeys: String, CodingKey {
            case enrollmentCode = "enrollment_code"
        }
    }

    struct Enrolled: ResponseEncodable {
        var deviceID: String
        var environment: String

        enum CodingKeys: String, CodingKey {
            case environment
            case deviceID = "device_id"
        }
    }

    func addRoutes(to router: RouterGroup<AppRequestContext>) {
        router.post(RouterPath(Self.path), use: enroll)
    }

    @Sendable func enroll(_ request: Request, context: AppRequestContext) async throws -> Enrolled {
        let body = try await JSONBody.decode(Enrollment.self, from: request, context: context)
        let proof = try dpop.requiredProof(of: request, path: Self.path)
        let refused = APIError(.badRequest, OAuthErrorCode.invalidGrant, "The enrollment code is wrong, used or expired.")
        guard let digest = EnrollmentCode.digest(of: body.enrollmentCode) else { throw refused }
        do {
            let device = try await dpop.recordingUse {
                try await changes.enrollSharedDevice(codeHash: digest, proof: proof)
            }
            return Enrolled(deviceID: device.id, environment: device.environmentID)
        } catch is EnrollmentRefused {
            throw refused
        }
    }
}
