import Hummingbird

/// `GET /readyz`: whether this instance can serve now, for a load balancer's health check.
///
/// `/healthz` says the process is alive; this also asks the store (a cheap read), so an
/// instance that lost its database is taken out of rotation instead of answering 503s.
/// A signing key is loaded before the server listens, or it does not start.
struct ReadinessController: Sendable {
    let store: any OnboardingStore

    func addRoutes(to router: Router<AppRequestContext>) {
        router.get("readyz") { _, _ in
            let storeAnswers = (try? await store.latestEventRowID()) != nil
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            let body = storeAnswers ? #"{"status":"ready"}"# : #"{"status":"unavailable","reason":"store"}"#
            return Response(
                status: storeAnswers ? .ok : .serviceUnavailable, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: body))
            )
        }
    }
}
