import FieldpassDomain

/// What happens to users who register but never sign in.
///
/// Key: `users.unconfirmed_retention` (seconds after their last registration that a user
/// who never completed a sign-in is removed with their realm and devices; default 604800,
/// 7 days; 0 keeps them forever).
public struct UserSettings: Sendable {
    /// Seconds an unconfirmed user is kept after their last registration; 0: forever.
    public var unconfirmedRetention: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        unconfirmedRetention = try settings.int(["users", "unconfirmed_retention"], default: 604_800, in: 0...315_360_000)
    }
}
