public import Foundation

/// What `register_device` stores: who, which device, and the session's one-time secrets.
public struct DeviceRegistration: Sendable {
    public var email: String
    public var environmentID: String
    public var deviceName: String
    public var platform: String
    public var sessionID: String
    public var state: String
    public var nonce: String
    public var codeVerifier: String
    public var now: Date
    public var expiresAt: Date

    public init(
        email: String, environmentID: String, deviceName: String, platform: String,
        sessionID: String, state: String, nonce: String, codeVerifier: String, now: Date, expiresAt: Date
    ) {
        self.email = email
        self.environmentID = environmentID
        self.deviceName = deviceName
        self.platform = platform
        self.sessionID = sessionID
        self.state = state
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.now = now
        self.expiresAt = expiresAt
    }
}
