import FieldpassDomain
import Foundation
import Hummingbird

/// A shift as the admin API shows it: who held the device, from when, until when and why.
struct ShiftResponse: ResponseEncodable {
    var shiftID: String
    var userID: String
    var email: String
    var startedAt: Date
    var endedAt: Date?
    var endReason: ShiftEndReason?
    /// `true` for a shift started offline with a permit and reconciled later; absent otherwise.
    var offline: Bool?

    init(_ shift: ShiftRecord) {
        shiftID = shift.id
        userID = shift.userID
        email = shift.email
        startedAt = shift.startedAt
        endedAt = shift.endedAt
        endReason = shift.endReason
        offline = shift.offlinePermitID == nil ? nil : true
    }

    enum CodingKeys: String, CodingKey {
        case email, offline
        case shiftID = "shift_id"
        case userID = "user_id"
        case startedAt = "started_at"
        case endedAt = "ended_at"
        case endReason = "end_reason"
    }
}
