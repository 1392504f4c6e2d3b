import FieldpassDomain

/// How long an admin console session lasts.
///
/// Keys: `console.idle_timeout` (seconds without a request after which a session ends,
/// default 1800) and `console.lifetime` (seconds after sign-in after which it ends whatever
/// happens, default 43200: 12 hours).
public struct ConsoleSettings: Sendable {
    public var idleTimeout: Int
    public var lifetime: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        idleTimeout = try settings.int(["console", "idle_timeout"], default: 1800, in: 1...86_400)
        lifetime = try settings.int(["console", "lifetime"], default: 43_200, in: 1...604_800)
    }
}
