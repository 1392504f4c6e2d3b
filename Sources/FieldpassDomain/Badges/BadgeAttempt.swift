public import Foundation

/// A badge sign-in on a shared device, as the store decides it: the PIN was checked against
/// `checkedPinHash` before the transaction (a slow hash holds no lock), which the transaction
/// finds unchanged or answers as a refusal.
public struct BadgeAttempt: Sendable {
    public var badgeHash: String
    /// The stored PIN hash the PIN was checked against, and whether it matched.
    public var checkedPinHash: String
    public var pinMatched: Bool
    /// The hash of the worker's new PIN (checked by ``PinRules`` already), when they set one.
    public var newPinHash: String?
    /// The device's proof, checked but for its replay, which the transaction records.
    public var proof: DPoPRules.AcceptedProof
    /// The shift the sign-in starts: its id is also its device record's.
    public var shiftID: String
    /// The shift's refresh token, by its hash, and when it and its rotations end.
    public var refreshTokenHash: String
    public var refreshTokenExpiresAt: Date
    public var refreshTokenMaxExpiresAt: Date
    public var settings: BadgeSettings
    /// The offline permit the sign-in issues, when offline shifts are on.
    public var offlinePermit: OfflinePermitIssue?

    public init(
        badgeHash: String, checkedPinHash: String, pinMatched: Bool, newPinHash: String?, proof: DPoPRules.AcceptedProof,
        shiftID: String, refreshTokenHash: String, refreshTokenExpiresAt: Date, refreshTokenMaxExpiresAt: Date, settings: BadgeSettings,
        offlinePermit: OfflinePermitIssue? = nil
    ) {
        self.badgeHash = badgeHash
        self.checkedPinHash = checkedPinHash
        self.pinMatched = pinMatched
        self.newPinHash = newPinHash
        self.proof = proof
        self.shiftID = shiftID
        self.refreshTokenHash = refreshTokenHash
        self.refreshTokenExpiresAt = refreshTokenExpiresAt
        self.refreshTokenMaxExpiresAt = refreshTokenMaxExpiresAt
        self.settings = settings
        self.offlinePermit = offlinePermit
    }
}

/// How a badge sign-in ended.
public enum BadgeOutcome: Sendable, Equatable {
    /// The shift started.
    case signedIn(ShiftRecord)
    /// No such badge (of this device's environment), revoked, expired, its person disabled,
    /// or the device no enrolled shared device: one answer for all.
    case refused
    case wrongPin(attemptsLeft: Int)
    case locked
    /// The PIN was right but temporary, and no new PIN came with it.
    case pinChangeRequired
}
