import Hummingbird
import Prometheus
import Tokens

/// `GET /metrics`: every metric in the Prometheus text format, for a scraper.
///
/// Nothing in it names a person, a session or a secret, but it tells how busy the service
/// is and how sign-ins fail. With `metrics.token_env` set, only a scraper sending that token
/// as a bearer token reads it; without, it is open like `/healthz`, for scrapers kept out
/// at the network.
struct MetricsController: Sendable {
    let registry: PrometheusCollectorRegistry
    /// SHA-256 of the scrapers' token, so tokens of any length compare in constant time; nil: open.
    let tokenDigest: [UInt8]?

    init(registry: PrometheusCollectorRegistry, settings: MetricsSettings) {
        self.registry = registry
        tokenDigest = settings.token.map { Crypto.sha256(Array($0.utf8)) }
    }

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("metrics") { request, _ in
            try authorize(request.headers[.authorization])
            return Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
            )
        }
    }

    /// Throws the RFC 6750 401 unless `/metrics` is open or `header` carries the token.
    private func authorize(_ header: String?) throws(APIError) {
        guard let tokenDigest else { return }
        guard let token = header.flatMap({ BearerAuthenticator.token(in: $0) }) else {
            throw BearerAuthenticator.unauthorized("A bearer token is required for /metrics.")
        }
        guard Crypto.constantTimeEquals(Crypto.sha256(Array(token.utf8)), tokenDigest) else {
            throw BearerAuthenticator.unauthorized("The metrics token is wrong.", invalidToken: true)
        }
    }
}
