public import Foundation

/// What the confirmation page shows of a session, and the secret its form must carry.
public struct DeviceConfirmation: Sendable, Equatable {
    public var deviceName: String
    public var platform: String
    public var registeredAt: Date
    public var userCode: String
    public var csrfToken: String
    /// Still pending, unconfirmed and unexpired: the link has not been used.
    public var isUsable: Bool

    public init(deviceName: String, platform: String, registeredAt: Date, userCode: String, csrfToken: String, isUsable: Bool) {
        self.deviceName = deviceName
        self.platform = platform
        self.registeredAt = registeredAt
        self.userCode = userCode
        self.csrfToken = csrfToken
        self.isUsable = isUsable
    }
}

/// How a confirmation POST ended.
public enum ConfirmationOutcome: Sendable, Equatable {
    /// Confirmed now: the session and its state, to build the IdP's authorization URL.
    case confirmed(OnboardingSession, state: String)
    /// The form's token is not this session's: nothing changed.
    case forged
    /// Confirmed before, or the session has ended.
    case used
    case unknown
}
