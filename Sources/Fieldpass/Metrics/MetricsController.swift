import Hummingbird
import Prometheus

/// `GET /metrics`: every metric in the Prometheus text format, for a scraper.
///
/// Like `/healthz` it needs no token: scrapers are usually kept out at the network, and
/// nothing in it names a person, a session or a secret.
struct MetricsController: Sendable {
    let registry: PrometheusCollectorRegistry

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("metrics") { _, _ in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer()))
            )
        }
    }
}
