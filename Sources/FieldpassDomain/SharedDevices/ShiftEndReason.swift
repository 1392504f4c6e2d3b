/// Why a shift ended, as the device's events, the lifecycle feed and the audit log say it.
public enum ShiftEndReason: String, Codable, Sendable, CaseIterable {
    /// The worker signed out on the device.
    case signedOut = "signed_out"
    /// An admin, or the device's team's manager, ended it.
    case endedByAdmin = "ended_by_admin"
    /// It reached `shared_devices.max_shift`.
    case maxShift = "max_shift"
    /// None of its tokens was refreshed for `shared_devices.idle_timeout`.
    case idle
    /// The worker was disabled or removed.
    case userDisabled = "user_disabled"
    /// The device was unenrolled.
    case unenrolled
    /// The next worker signed in on the device: a forgotten sign-out never blocks the next crew.
    case nextWorker = "next_worker"
    /// A spent refresh token of the shift came back, so a copy is in other hands: the shift's
    /// tokens are cut off, as any device's are on a reuse.
    case tokenReused = "token_reused"
    /// It started and ended on the device without a network, and was reported when the device
    /// was back (``OfflineShiftRules``).
    case endedOffline = "ended_offline"
}
