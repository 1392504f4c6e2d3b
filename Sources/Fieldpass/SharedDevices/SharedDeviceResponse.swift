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
