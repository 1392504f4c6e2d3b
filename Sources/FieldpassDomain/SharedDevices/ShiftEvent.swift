public import Foundation

/// What the apps on a shared device hear: a shift started or ended, numbered in the order
/// the device's changes committed (`GET /shared_devices/events`), with these keys.
public struct ShiftEvent: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        case shiftStarted = "shift_started"
        case shiftEnded = "shift_ended"
    }

    public var seq: Int
    public var type: Kind
    public var shiftID: String
    public var userID: String
    public var email: String
    /// Why the shift ended; only on `shift_ended`.
    public var reason: ShiftEndReason?
    public var at: Date

    enum CodingKeys: String, CodingKey {
        case seq, type, email, reason, at
        case shiftID = "shift_id"
        case userID = "user_id"
    }

    public init(seq: Int, type: Kind, shiftID: String, userID: String, email: String, reason: ShiftEndReason?, at: Date) {
        self.seq = seq
        self.type = type
        self.shiftID = shiftID
        self.userID = userID
        self.email = email
        self.reason = reason
        self.at = at
    }
}
