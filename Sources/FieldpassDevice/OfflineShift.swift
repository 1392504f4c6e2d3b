public import Foundation

/// A worker's time on a shared device that began with no network: badge and PIN checked on
/// the device against the worker's offline permit (``SharedDevice/signInOffline(badge:pin:now:)``).
/// There is no token: the app shows the worker's data it already holds, as the permit's role
/// and realms allow, and ``SharedDevice/reconcileOfflineShifts()`` later tells Fieldpass, which
/// accepts the shift (the running one then becomes a real shift, with tokens) or refuses it.
public struct OfflineShift: Codable, Sendable, Equatable {
    /// The permit's `jti`: how Fieldpass names the shift in its answer before it has an id.
    public let permitID: String
    public let userID: String
    public let email: String
    /// `admin`, `manager` or `worker`, as the permit said when Fieldpass issued it.
    public let role: String
    /// The id of the company's environment.
    public let environment: String
    /// Realm path (or pattern) → `read`, `write` or `manage`, as an access token carries them.
    public let realms: [String: String]
    public let startedAt: Date
    /// Always `true`: Fieldpass has not seen this shift yet, and it holds no token.
    public var offline: Bool { true }

    enum CodingKeys: String, CodingKey {
        case email, role, realms
        case permitID = "permit_id"
        case userID = "user_id"
        case environment = "env"
        case startedAt = "started_at"
    }
}
