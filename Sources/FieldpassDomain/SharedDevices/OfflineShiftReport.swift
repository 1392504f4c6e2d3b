public import Foundation

/// One entry of a shared device's report of what happened offline
/// (`POST /shared_devices/offline_shifts`), its permit's signature already checked.
public struct OfflineShiftReport: Sendable, Equatable {
    /// What a permit signed by Fieldpass says, when its signature, type and issuer held;
    /// its times are left to ``OfflineShiftRules`` to judge against the shift's start.
    public struct Permit: Sendable, Equatable {
        public var id: String
        public var userID: String
        public var environmentID: String
        /// `cnf.jkt`: the key of the device it was issued to.
        public var keyThumbprint: String
        public var issuedAt: Date
        public var expiresAt: Date

        public init(id: String, userID: String, environmentID: String, keyThumbprint: String, issuedAt: Date, expiresAt: Date) {
            self.id = id
            self.userID = userID
            self.environmentID = environmentID
            self.keyThumbprint = keyThumbprint
            self.issuedAt = issuedAt
            self.expiresAt = expiresAt
        }
    }

    /// `nil` when the permit is none of Fieldpass's.
    public var permit: Permit?
    /// When the shift started and ended on the device's clock; `startedAt` `nil` for an entry
    /// that only reports wrong PINs no shift followed, `endedAt` `nil` for the running shift.
    public var startedAt: Date?
    public var endedAt: Date?
    /// The wrong PINs typed on the device for this permit, all told.
    public var failedPins: Int

    public init(permit: Permit?, startedAt: Date?, endedAt: Date?, failedPins: Int) {
        self.permit = permit
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.failedPins = failedPins
    }

    /// The running shift: started, not ended.
    public var isRunning: Bool { startedAt != nil && endedAt == nil }
}

/// The id and refresh token a report's running shift gets if it is accepted, made with the
/// request (a report has one running shift at most, its last entry).
public struct RunningOfflineShift: Sendable {
    public var shiftID: String
    public var refreshTokenHash: String
    public var refreshTokenExpiresAt: Date
    public var refreshTokenMaxExpiresAt: Date

    public init(shiftID: String, refreshTokenHash: String, refreshTokenExpiresAt: Date, refreshTokenMaxExpiresAt: Date) {
        self.shiftID = shiftID
        self.refreshTokenHash = refreshTokenHash
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.refreshTokenMaxExpiresAt = refreshTokenMaxExpiresAt
    }
}

/// Why reconciliation refused an offline shift.
public enum OfflineShiftRefusal: String, Sendable, Equatable, CaseIterable {
    /// Not signed by Fieldpass, not a permit, or not one it issued.
    case permitInvalid = "permit_invalid"
    /// Issued to another device.
    case notThisDevice = "not_this_device"
    /// Expired when the shift started.
    case expired
    /// The person was disabled or removed before the shift started.
    case userDisabled = "user_disabled"
    /// The badge was revoked or replaced before the shift started.
    case badgeRevoked = "badge_revoked"
    /// Started or ended later than now, beyond the clock skew, or before its permit was issued.
    case impossibleTime = "impossible_time"
}

/// What reconciliation answered for one entry.
public enum OfflineShiftResult: Sendable, Equatable {
    /// Recorded, now or by an earlier report of the same shift (`new`: by this one). `shift`:
    /// the shift recorded, `nil` for an entry of wrong PINs only.
    case accepted(permitID: String, shift: ShiftRecord?, new: Bool)
    case refused(permitID: String?, OfflineShiftRefusal)
}
