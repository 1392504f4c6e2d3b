import FieldpassDomain
import Foundation
import Hummingbird

/// A shared device as the admin API shows it; the enrollment code is never among it.
struct SharedDeviceResponse: ResponseEncodable {
    var deviceID: String
    var name: String
    var teamID: String?
    var state: SharedDeviceState
    var createdAt: Date
    var enrollmentExpiresAt: Date
    var enrolledAt: Date?
    var keyThumbprint: String?
    var unenrolledAt: Date?
    /// Who holds the device now: its open shift.
    var holder: ShiftResponse?
    /// Its shifts, latest first: only on one device's own page.
    var shifts: [ShiftResponse]?
    /// Whose offline permits it holds, until when: only on one device's own page.
    var offlinePermits: [OfflinePermit]?

    /// A person's latest unexpired offline permit on the device; `withdrawn` once their badge
    /// was revoked or replaced (reconciliation refuses it from then on, the device may still
    /// use it offline).
    struct OfflinePermit: Encodable {
        var userID: String
        var email: String
        var issuedAt: Date
        var expiresAt: Date
        var withdrawn: Bool

        init(_ holder: OfflinePermitHolder) {
            userID = holder.permit.userID
            email = holder.email
            issuedAt = holder.permit.issuedAt
            expiresAt = holder.permit.expiresAt
            withdrawn = holder.permit.withdrawnAt != nil
        }

        enum CodingKeys: String, CodingKey {
            case email, withdrawn
            case userID = "user_id"
            case issuedAt = "issued_at"
            case expiresAt = "expires_at"
        }
    }

    init(_ record: SharedDeviceRecord) {
        deviceID = record.id
        name = record.name
        teamID = record.teamID
        state = record.state
        createdAt = record.createdAt
        enrollmentExpiresAt = record.enrollmentExpiresAt
        enrolledAt = record.enrolledAt
        keyThumbprint = record.keyThumbprint
        unenrolledAt = record.unenrolledAt
        holder = record.holder.map(ShiftResponse.init)
    }

    enum CodingKeys: String, CodingKey {
        case name, state, holder, shifts
        case offlinePermits = "offline_permits"
        case deviceID = "device_id"
        case teamID = "team_id"
        case createdAt = "created_at"
        case enrollmentExpiresAt = "enrollment_expires_at"
        case enrolledAt = "enrolled_at"
        case keyThumbprint = "key_thumbprint"
        case unenrolledAt = "unenrolled_at"
    }

    /// `{"shared_devices": [...]}`.
    struct List: ResponseEncodable {
        var sharedDevices: [SharedDeviceResponse]

        enum CodingKeys: String, CodingKey {
            case sharedDevices = "shared_devices"
        }
    }

    /// A new device and its enrollment code, shown this once.
    struct Created: ResponseEncodable {
        var deviceID: String
        var name: String
        var teamID: String?
        var enrollmentCode: String
        var enrollmentExpiresAt: Date

        enum CodingKeys: String, CodingKey {
            case name
            case deviceID = "device_id"
            case teamID = "team_id"
            case enrollmentCode = "enrollment_code"
            case enrollmentExpiresAt = "enrollment_expires_at"
        }
    }
}
