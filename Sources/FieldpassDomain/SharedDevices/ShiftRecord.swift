public import Foundation

/// One worker's time on a shared device: from the sign-in on it to the first of the ends in
/// ``ShiftEndReason``. Its tokens belong to a device record of the shift's own, with the
/// shift's id, so that ending the shift revokes exactly them, on every instance, as revoking
/// a device does.
public struct ShiftRecord: Codable, Sendable, Equatable {
    public var id: String
    public var sharedDeviceID: String
    public var userID: String
    public var email: String
    public var startedAt: Date
    public var endedAt: Date?
    public var endReason: ShiftEndReason?
    /// How Fieldpass itself authenticated the worker for the shift (RFC 8176 values): a badge
    /// sign-in's ``BadgeRules/amr``, which every access token of the shift says, the refreshed
    /// ones too; `nil` after a sign-in at the company's IdP.
    public var amr: [String]?
    /// Who made the temporary PIN the shift was started with (``BadgeRecord/pinIssuedBy``), as
    /// the audit log names them: such a shift is the issuer's word that the worker is there.
    /// `nil` for a shift started with the worker's own PIN or at the IdP.
    public var pinIssuedBy: String?
    /// The offline permit the shift was started with on the device, without a network, and
    /// reconciled later (``OfflineShiftRules``); `nil` for a shift started online.
    public var offlinePermitID: String?

    public init(
        id: String, sharedDeviceID: String, userID: String, email: String, startedAt: Date, endedAt: Date? = nil,
        endReason: ShiftEndReason? = nil, amr: [String]? = nil, pinIssuedBy: String? = nil, offlinePermitID: String? = nil
    ) {
        self.id = id
        self.sharedDeviceID = sharedDeviceID
        self.userID = userID
        self.email = email
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.amr = amr
        self.pinIssuedBy = pinIssuedBy
        self.offlinePermitID = offlinePermitID
    }

    /// Still running: its tokens work.
    public var isOpen: Bool { endedAt == nil }

    /// The shift as it is once ended at `now` for `reason`.
    package func ended(_ reason: ShiftEndReason, at now: Date) -> ShiftRecord {
        var ended = self
        ended.endedAt = now
        ended.endReason = reason
        return ended
    }
}
