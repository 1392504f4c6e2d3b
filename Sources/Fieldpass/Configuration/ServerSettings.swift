import FieldpassDomain
import Foundation
/// Where the service listens and the URL devices and the IdP see.
///
/// Keys: `server.host` (default `127.0.0.1`), `server.port` (default 8080),
/// `server.public_url` (default `http://<host>:<port>`; the token issuer and the base of
/// `/auth_callback` and the event WebSocket), `server.drain_time` (seconds between SIGTERM
/// and shutting down, during which `/readyz` answers 503; default 5),
/// `server.shutdown_timeout` (seconds the shutdown waits for requests under way and open
/// connections before it closes them; default 10), `server.trusted_proxies`
/// (addresses or networks whose `X-Forwarded-For` is believed, default none) and
/// `server.idle_timeout` (seconds an HTTP connection may sit between requests, default 60).
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
    /// Seconds a graceful shutdown may take before the connections still open are closed: a
    /// client that keeps a connection open without finishing a request cannot hold it up.
    public var shutdownTimeout: Int
    /// Proxies whose `X-Forwarded-For` names the client.
    public var trustedProxies: [IPNetwork]
    /// Seconds an idle HTTP connection is kept open; WebSockets keep themselves alive with pings.
    public var idleTimeout: Int

    init(_ settings: SettingsReader) throws(ConfigurationError) {
        host = try settings.string(["server", "host"], default: "127.0.0.1")
        port = try settings.int(["server", "port"], default: 8080, in: 0...65535)
        publicURL = try settings.baseURL(["server", "public_url"], default: "http://\(host):\(port)")
        drainTime = try settings.int(["server", "drain_time"], default: 5, in: 0...300)
        shutdownTimeout = try settings.int(["server", "shutdown_timeout"], default: 10, in: 1...300)
        trustedProxies = try settings.strings(["server", "trusted_proxies"], default: []).map { text throws(ConfigurationError) in
            guard let network = IPNetwork(text) else {
                throw ConfigurationError(key: "server.trusted_proxies", "'\(text)' is not an IP address or network such as 10.0.0.0/8")
            }
            return network
        }
        idleTimeout = try settings.int(["server", "idle_timeout"], default: 60, in: 1...3600)
    }

    /// Whether browsers reach Fieldpass over https, so its cookies can be `Secure`.
    public var isHTTPS: Bool { publicURL.hasPrefix("https://") }

    /// The path `public_url` puts in front of every route (`""`, or `/fieldpass` behind a
    /// proxy that serves it there), for cookie paths.
    public var publicPath: String {
        let path = URLComponents(string: publicURL)?.path ?? ""
        return path.hasSuffix("/") ? String(path.dropLast()) : path
    }

    /// `public_url` with `ws`/`wss` in place of `http`/`https`.
    public var publicWebSocketURL: String {
        if isHTTPS { return "wss://" + publicURL.dropFirst("https://".count) }
        return "ws://" + publicURL.dropFirst("http://".count)
    }
}
