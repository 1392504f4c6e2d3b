/// Where the service listens and the URL devices and the IdP see.
///
/// Keys: `server.host` (default `127.0.0.1`), `server.port` (default 8080),
/// `server.public_url` (default `http://<host>:<port>`; the token issuer and the base of
/// `/auth_callback` and the event WebSocket), `server.drain_time` (seconds between SIGTERM
/// and shutting down, during which `/readyz` answers 503; default 5).
public struct ServerSettings: Sendable {
    /// Address to bind.
    public var host: String
    /// Port to bind; 0 picks a free one.
    public var port: Int
    /// Public base URL without a trailing slash.
    public var publicURL: String
    /// Seconds `/readyz` says "draining" after SIGTERM before the server stops, so a load
    /// balancer takes the instance out of rotation first.
    public var drainTime: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        host = try settings.string(["server", "host"], default: "127.0.0.1")
        port = try settings.int(["server", "port"], default: 8080, in: 0...65535)
        publicURL = try settings.baseURL(["server", "public_url"], default: "http://\(host):\(port)")
        drainTime = try settings.int(["server", "drain_time"], default: 5, in: 0...300)
    }

    /// `public_url` with `ws`/`wss` in place of `http`/`https`.
    public var publicWebSocketURL: String {
        if publicURL.hasPrefix("https://") { return "wss://" + publicURL.dropFirst("https://".count) }
        return "ws://" + publicURL.dropFirst("http://".count)
    }
}
