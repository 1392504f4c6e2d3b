public import Foundation

/// An onboarding session: one device signing in once.
public struct OnboardingSession: Sendable, Equatable {
    /// Where a session stands.
    public enum Status: String, Sendable {
        /// Registered; the device has not come back from the IdP.
        case pending
        /// The callback took the state; the code is being exchanged.
        case exchanging
        /// Tokens issued; waiting for the realm's data.
        case authenticated
        /// `data_ready` stored.
        case completed
        /// `login_failed` stored.
        case failed
        /// `session_expired` stored.
        case expired
    }

    public var id: String
    public var userID: String
    public var deviceID: String
    public var environmentID: String
    public var email: String
    public var role: String
    public var nonce: String
    public var codeVerifier: String
    public var status: Status
    public var expiresAt: Date
    /// Whether the session was registered with a confirmation page (its environment's
    /// `confirm_device`): then only the browser that confirmed may finish it.
    public var confirmsDevice: Bool
    /// The hash of the cookie the confirmation page set in the browser that confirmed; `nil`
    /// until then, and always for a session without the page.
    public var browserBinding: String? = nil
    /// Where the browser returns to the app when the sign-in ends; `nil` for Fieldpass's own pages.
    public var appReturn: AppReturn? = nil
    /// The RFC 7638 thumbprint of the key the registration proved (DPoP): the sign-in's
    /// refresh token is bound to it. `nil` for a registration without a proof.
    public var dpopThumbprint: String? = nil

    public init(
        id: String, userID: String, deviceID: String, environmentID: String, email: String, role: String, nonce: String,
        codeVerifier: String, status: Status, expiresAt: Date, confirmsDevice: Bool, browserBinding: String? = nil,
        appReturn: AppReturn? = nil, dpopThumbprint: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.deviceID = deviceID
        self.environmentID = environmentID
        self.email = email
        self.role = role
        self.nonce = nonce
        self.codeVerifier = codeVerifier
        self.status = status
        self.expiresAt = expiresAt
        self.confirmsDevice = confirmsDevice
        self.browserBinding = browserBinding
        self.appReturn = appReturn
        self.dpopThumbprint = dpopThumbprint
    }

    /// No event can follow: the session's terminal event is stored. The session itself ends
    /// when the device acknowledges that event, or at the grace (``SessionRules``).
    public var isFinished: Bool { SessionRules.finished.contains(status) }

    /// The user's personal realm.
    public var realmPath: String { RealmPath.personal(userID: userID) }
}
