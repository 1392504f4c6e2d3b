import FieldpassDomain
import Hummingbird

/// `GET /readyz`: whether this instance can serve now, for a load balancer's health check.
///
/// `/healthz` says the process is alive; this says 503 while the instance starts, while it
/// drains after SIGTERM, and when the store does not answer (a cheap read), so an instance
/// that lost its database is taken out of rotation instead of answering 503s. A signing key
/// is loaded before the server listens, or it does not start.
struct ReadinessController: Sendable {
    let store: any OnboardingStore
    let readiness: Readiness

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("readyz") { _, _ in
            let body: String
            switch readiness.phase {
            case .starting: body = #"{"status":"unavailable","reason":"starting"}"#
            case .draining: body = #"{"status":"unavailable","reason":"draining"}"#
            case .serving:
                let storeAnswers = (try? await store.latestEventRowID()) != nil
                body = storeAnswers ? #"{"status":"ready"}"# : #"{"status":"unavailable","reason":"store"}"#
            }
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            return Response(
                status: body.contains(#""ready""#) ? .ok : .serviceUnavailable, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
    }
}
