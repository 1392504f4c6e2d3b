public import Foundation

/// What Fieldpass keeps of an offline permit it issued (`shared_devices.offline_permit_ttl`):
/// a person may start a shift on one shared device without a network, with the badge and PIN
/// the permit was issued at, until it expires. The signed permit itself is not kept: it holds
/// nothing secret and is signed again when the device lists its permits, with the same id and
/// end. What is kept is what reconciling an offline shift is decided on.
public struct OfflinePermitRecord: Sendable, Equatable {
    /// The permit's `jti`.
    public var id: String
    public var sharedDeviceID: String
    public var environmentID: String
    public var userID: String
    /// The badge it was issued at: a badge revoked or replaced takes its permits with it.
    public var badgeID: String
    public var issuedAt: Date
    public var expiresAt: Date
    /// When its badge was revoked or replaced: an offline shift started since is refused.
    public var withdrawnAt: Date?
    /// The wrong PINs typed on the device for this permit that reconciliation has counted
    /// toward the badge's lockout already: the device reports a running total, so that a
    /// report sent twice counts once.
    public var failedPinsCounted: Int

    public init(
        id: String, sharedDeviceID: String, environmentID: String, userID: String, badgeID: String, issuedAt: Date, expiresAt: Date,
        withdrawnAt: Date? = nil, failedPinsCounted: Int = 0
    ) {
        self.id = id
        self.sharedDeviceID = sharedDeviceID
        self.environmentID = environmentID
        self.userID = userID
        self.badgeID = badgeID
        self.issuedAt = issuedAt
        self.expiresAt = expiresAt
        self.withdrawnAt = withdrawnAt
        self.failedPinsCounted = failedPinsCounted
    }

}

/// The permit a badge sign-in issues when offline shifts are on: its id and end, chosen with
/// the request; the sign-in's rule keeps it with the shift it starts.
public struct OfflinePermitIssue: Sendable, Equatable {
    public var id: String
    public var expiresAt: Date

    public init(id: String, expiresAt: Date) {
        self.id = id
        self.expiresAt = expiresAt
    }
}
