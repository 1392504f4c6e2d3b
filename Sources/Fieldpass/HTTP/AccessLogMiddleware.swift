import HTTPTypes
import Hummingbird
import Logging

/// One log line and one count per request, and its request id.
///
/// The line holds the method, the route template (`/admin/users/{id}`, never the raw path
/// or query string: those can carry a session id, a code or a state), the status and the
/// duration. An `X-Request-ID` from the client is kept when it is short and plain, else one
/// is generated; either way it is in every log line of the request and in the response.
struct AccessLogMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Where Hummingbird keeps the request id in the request's logger.
    static var requestIDKey: String { "hb.request.id" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        let requestID = request.headers[.xRequestID].flatMap(Self.acceptable) ?? context.id
        context.logger[metadataKey: Self.requestIDKey] = .string(requestID)
        let start = ContinuousClock.now
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        }
        response.headers[.xRequestID] = requestID
        let elapsed = ContinuousClock.now - start
        let route = context.endpointPath ?? "-"
        FieldpassMetrics.request(method: request.method.rawValue, route: route, status: Int(response.status.code), duration: elapsed)
        context.logger.info(
            "Request",
            metadata: [
                "http.method": "\(request.method.rawValue)",
                "http.route": "\(route)",
                "http.status": "\(response.status.code)",
                "duration_ms": "\(Self.milliseconds(elapsed))",
            ])
        return response
    }

    /// A client's request id if it is 1 to 128 characters of letters, digits and `-_.:`,
    /// which cannot break a log line or smuggle anything into it.
    static func acceptable(_ value: String) -> String? {
        guard (1...128).contains(value.utf8.count),
            value.utf8.allSatisfy({ byte in
                (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || "-_.:".utf8.contains(byte)
            })
        else { return nil }
        return value
    }

    /// `duration` in milliseconds with three decimals.
    static func milliseconds(_ duration: Duration) -> String {
        let micros = duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000
        let fraction = String(micros % 1000)
        return "\(micros / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

extension HTTPField.Name {
    /// `X-Request-ID`, the de-facto header for correlating a request across services.
    static let xRequestID = Self("X-Request-ID")!
}
