import FieldpassDomain
import Foundation
import Metrics

/// Every metric Fieldpass records, named in one place (swift-metrics; `fieldpass serve`
/// exports them through swift-prometheus at `GET /metrics`).
///
/// Labels hold only bounded values: route templates, grant types, step names, error codes
/// of our own, environment ids from the configuration. Never a path, an email or an id.
enum FieldpassMetrics {
    /// A step of the onboarding funnel.
    enum Step: String {
        case registered, confirmed
        case signedIn = "signed_in"
        case dataReady = "data_ready"
        case expired
    }

    /// One answered HTTP request.
    static func request(method: String, route: String, status: Int, duration: Duration) {
        Counter(label: "http_requests_total", dimensions: [("method", method), ("route", route), ("status", String(status))]).increment()
        Timer(label: "http_request_duration_seconds", dimensions: [("method", method), ("route", route)]).record(duration: duration)
    }

    /// `count` onboardings passed `step`.
    static func onboarding(_ step: Step, count: Int = 1) {
        guard count > 0 else { return }
        Counter(label: "fieldpass_onboarding_total", dimensions: [("step", step.rawValue)]).increment(by: count)
    }

    /// A sign-in ended in `login_failed` with this error code (a listed reason, else `other`).
    static func loginFailed(code: String) {
        Counter(label: "fieldpass_login_failed_total", dimensions: [("reason", LoginFailureReason.label(code))]).increment()
    }

    /// A `/token` request of `grantType` (a known one, else `other`) ended with `result`
    /// (`issued` or the OAuth error code).
    static func grant(_ grantType: String, result: String) {
        Counter(label: "fieldpass_token_grants_total", dimensions: [("grant_type", grantType), ("result", result)]).increment()
    }

    /// A DPoP proof refused, by its reason (one of ``DPoPRefusal/Reason``).
    static func dpopRefused(_ reason: DPoPRefusal.Reason) {
        Counter(label: "fieldpass_dpop_proofs_refused_total", dimensions: [("reason", reason.rawValue)]).increment()
    }

    /// A badge sign-in on a shared device ended with `result`: `signed_in`, `refused`,
    /// `wrong_pin`, `locked` (the badge is, or this wrong PIN locked it) or `pin_change_required`.
    static func badgeSignIn(_ result: String) {
        Counter(label: "fieldpass_badge_sign_ins_total", dimensions: [("result", result)]).increment()
    }

    /// A request refused with 429 by the rate limit `limit` (its configuration name).
    static func rateLimited(_ limit: String) {
        Counter(label: "fieldpass_rate_limited_total", dimensions: [("limit", limit)]).increment()
    }

    /// Event sockets open in this process.
    static let openSockets = Meter(label: "fieldpass_event_sockets")

    /// From an event's commit time to its frame written to a live socket.
    static func eventDelivered(storedAt: Double, now: Date = Date()) {
        let seconds = max(0, now.timeIntervalSince1970 - storedAt)
        Timer(label: "fieldpass_event_delivery_seconds").recordSeconds(seconds)
    }

    /// One call to an environment's IdP; `failed` when it could not be reached or did not answer 2xx.
    static func idpCall(environment: String, operation: String, duration: Duration, failed: Bool) {
        let dimensions = [("environment", environment), ("operation", operation)]
        Timer(label: "fieldpass_idp_request_duration_seconds", dimensions: dimensions).record(duration: duration)
        if failed {
            Counter(label: "fieldpass_idp_errors_total", dimensions: dimensions).increment()
        }
    }
}
