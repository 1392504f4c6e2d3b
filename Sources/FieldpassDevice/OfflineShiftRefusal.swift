/// Why Fieldpass refused an offline shift when the device reported it. A refused shift that
/// was running on the device is over: wipe what its worker left, as at the end of any shift.
public enum OfflineShiftRefusal: Sendable, Equatable {
    /// Fieldpass does not know the permit as one it signed (`permit_invalid`).
    case permitInvalid
    /// The permit is another device's (`not_this_device`).
    case notThisDevice
    /// The shift started after the permit expired (`expired`).
    case expired
    /// The person is disabled (`user_disabled`).
    case userDisabled
    /// The badge was revoked or replaced (`badge_revoked`).
    case badgeRevoked
    /// The shift started or ended later than Fieldpass's clock says it is, or before its permit
    /// was issued: the device's clock is wrong (`impossible_time`).
    case impossibleTime
    /// A reason this library does not know yet, as Fieldpass wrote it.
    case other(String)

    init(reason: String?) {
        switch reason {
        case "permit_invalid": self = .permitInvalid
        case "not_this_device": self = .notThisDevice
        case "expired": self = .expired
        case "user_disabled": self = .userDisabled
        case "badge_revoked": self = .badgeRevoked
        case "impossible_time": self = .impossibleTime
        default: self = .other(reason ?? "")
        }
    }

    /// The reason as Fieldpass writes it (`permit_invalid`, …).
    public var code: String {
        switch self {
        case .permitInvalid: "permit_invalid"
        case .notThisDevice: "not_this_device"
        case .expired: "expired"
        case .userDisabled: "user_disabled"
        case .badgeRevoked: "badge_revoked"
        case .impossibleTime: "impossible_time"
        case .other(let reason): reason
        }
    }
}
