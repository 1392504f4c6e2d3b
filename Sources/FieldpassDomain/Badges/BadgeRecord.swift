public import Foundation

/// A person's sign-in badge for shared devices: the printed card's value (kept only as its
/// hash) and a PIN (kept only as its slow hash). One per person; issuing again replaces it.
public struct BadgeRecord: Sendable, Equatable {
    public var id: String
    public var userID: String
    public var environmentID: String
    public var badgeHash: String
    public var pinHash: String
    /// A PIN an admin set: it works once, and only to set the worker's own.
    public var pinTemporary: Bool
    /// Who made the temporary PIN, as the audit log names them (`user:…`, `console:…`,
    /// `cli`); `nil` once the worker set their own, and for a temporary PIN made before
    /// Fieldpass kept it.
    public var pinIssuedBy: String?
    /// Wrong PINs in a row since the last right one or reset.
    public var failedPins: Int
    /// Set when the failures reached `badges.max_failed_pins`: refused until an admin resets the PIN.
    public var lockedAt: Date?
    public var issuedAt: Date
    public var expiresAt: Date

    /// Whether the badge still works at `time`: a card that has not expired (a revoked or
    /// replaced badge has no record any more).
    public func isLive(at time: Date) -> Bool { expiresAt > time }

    public init(
        id: String, userID: String, environmentID: String, badgeHash: String, pinHash: String, pinTemporary: Bool = true,
        pinIssuedBy: String? = nil, failedPins: Int = 0, lockedAt: Date? = nil, issuedAt: Date, expiresAt: Date
    ) {
        self.id = id
        self.userID = userID
        self.environmentID = environmentID
        self.badgeHash = badgeHash
        self.pinHash = pinHash
        self.pinTemporary = pinTemporary
        self.pinIssuedBy = pinIssuedBy
        self.failedPins = failedPins
        self.lockedAt = lockedAt
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
    }
}
