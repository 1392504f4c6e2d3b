public import Foundation

/// A shift on a shared device started or ended, numbered by the device (`seq`, from 1, in
/// the order the changes happened).
public struct ShiftChange: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case shiftStarted
        /// Why: `signed_out`, `ended_by_admin`, `max_shift`, `idle`, `user_disabled`,
        /// `next_worker` or `token_reused`. A shift that unenrolling the device ended is not
        /// heard as one: the changes end with ``FieldpassClientError/notEnrolled``.
        case shiftEnded(reason: String)
    }

    public let seq: Int
    public let kind: Kind
    public let shiftID: String
    public let userID: String
    public let email: String
    public let at: Date
}
