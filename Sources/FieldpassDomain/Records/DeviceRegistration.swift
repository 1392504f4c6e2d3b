public import Foundation

/// What `register_device` stores: who, which device, and the session's one-time secrets.
public struct DeviceRegistration: Sendable {
    public var email: String
    public var environmentID: String
    public var deviceName: String
    public var platform: String
    /// The app's installation id: a registration with one of the person's live devices' is
    /// that device; without one, or with a new one, it is a new device. Names and platforms
    /// never match (since iOS 16 every iPhone calls itself "iPhone").
    public var installID: String?
    public var sessionID: String
    public var state: String
    public var nonce: String
    public var codeVerifier: String
    /// The short code the app shows and the confirmation page repeats.
    public var userCode: String
    /// The confirmation page's id and its form secret; `nil` when the environment skips the page.
    public var confirmation: (loginID: String, csrfToken: String)?
    /// Where the browser returns to the app when the sign-in ends; `nil` for Fieldpass's own pages.
    public var appReturn: AppReturn?
    /// The registration's DPoP proof, checked but for its replay, which the registration's
    /// transaction records; its key binds the sign-in's tokens.
    public var dpopProof: DPoPRules.AcceptedProof?
    /// The thumbprint of the key the registration's DPoP proof was signed with, if it had one.
    public var dpopThumbprint: String? { dpopProof?.thumbprint }
    public var now: Date
    public var expiresAt: Date

    public init(
        email: String, environmentID: String, deviceName: String, platform: String, installID: String? = nil,
        sessionID: String, state: String, nonce: String, codeVerifier: String,
        userCode: String, confirmation: (loginID: String, csrfToken: String)?, appReturn: AppReturn? = nil,
        dpopProof: DPoPRules.AcceptedProof? = nil, now: Date, expiresAt: Date
    ) {
        self.email = email
        self.environmentID = environmentID
        self.deviceName = deviceName
        self.platform = platform
        self.installID = installID
        self.sessionID = sessionID
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.userCode = userCode
        self.confirmation = confirmation
        self.appReturn = appReturn
        self.dpopProof = dpopProof
        self.now = now
        self.expiresAt = expiresAt
    }
}

extension DeviceRegistration {
    /// The pending session this registration stored, once the store knows the person and device.
    package func pendingSession(userID: String, deviceID: String, role: String) -> OnboardingSession {
        OnboardingSession(
            id: sessionID, userID: userID, deviceID: deviceID, environmentID: environmentID, email: email, role: role,
            nonce: nonce, codeVerifier: codeVerifier, status: .pending, expiresAt: expiresAt,
            confirmsDevice: confirmation != nil, appReturn: appReturn, dpopThumbprint: dpopThumbprint
        )
    }
}
