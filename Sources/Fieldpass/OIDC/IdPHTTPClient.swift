import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOFoundationEssentialsCompat

/// Outbound HTTP to one environment's IdP, with a timeout on the whole call (an IdP that
/// hangs, or trickles its body, fails at the deadline) and a cap on what it may send back;
/// each call is timed and counted under the environment's id.
struct IdPHTTPClient: Sendable {
    /// The environment whose IdP this talks to, the metrics label.
    var environmentID: String
    var client: HTTPClient = Self.sharedClient
    var timeout: TimeAmount = .seconds(10)
    var maxResponseBytes = 1 << 20

    /// One client for every IdP call, living as long as the process (like `HTTPClient.shared`).
    /// Unlike the shared one it never follows redirects: a token endpoint that redirects must
    /// not take our client secret and the authorization code somewhere else.
    static let sharedClient = HTTPClient(
        eventLoopGroup: HTTPClient.defaultEventLoopGroup,
        configuration: HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(5), read: .seconds(10))
        )
    )

    /// GETs a JSON document; any non-2xx status or unparsable body is an error.
    func getJSON<T: Decodable>(_ type: T.Type, from url: String, bearer: String? = nil, operation: String) async throws(OIDCError) -> T {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "application/json")
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        let (status, body) = try await send(request, to: url, operation: operation)
        guard (200..<300).contains(status) else {
            throw OIDCError.idpUnavailable("\(Self.hostOf(url)) answered HTTP \(status)")
        }
        return try decode(type, from: body, source: url)
    }

    /// POSTs a form and returns the status with the raw body, for the caller to interpret.
    func postForm(
        _ fields: [(String, String)], to url: String, basicAuth: String?, operation: String
    ) async throws(OIDCError) -> (Int, Data) {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "Accept", value: "application/json")
        if let basicAuth { request.headers.add(name: "Authorization", value: "Basic \(basicAuth)") }
        request.body = .bytes(ByteBuffer(string: FormEncoding.encode(fields)))
        return try await send(request, to: url, operation: operation)
    }

    func decode<T: Decodable>(_ type: T.Type, from data: Data, source url: String) throws(OIDCError) -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw OIDCError.idpUnavailable("\(Self.hostOf(url)) sent an unexpected response")
        }
    }

    private func send(_ request: HTTPClientRequest, to url: String, operation: String) async throws(OIDCError) -> (Int, Data) {
        let start = ContinuousClock.now
        do {
            let (status, body) = try await withDeadline(ContinuousClock.now + .nanoseconds(timeout.nanoseconds)) {
                [client, timeout, maxResponseBytes] in
                let response = try await client.execute(request, timeout: timeout)
                return (Int(response.status.code), try await response.body.collect(upTo: maxResponseBytes))
            }
            FieldpassMetrics.idpCall(
                environment: environmentID, operation: operation, duration: ContinuousClock.now - start,
                failed: !(200..<300).contains(status)
            )
            return (status, Data(buffer: body))
        } catch {
            FieldpassMetrics.idpCall(environment: environmentID, operation: operation, duration: ContinuousClock.now - start, failed: true)
            // The client's own timeout is the same as the deadline, and either may fire first.
            if error is DeadlinePassed || [HTTPClientError.deadlineExceeded, .readTimeout].contains(error as? HTTPClientError) {
                throw OIDCError.idpUnavailable("\(Self.hostOf(url)) did not answer within \(timeout.nanoseconds / 1_000_000_000) s")
            }
            throw OIDCError.idpUnavailable("\(Self.hostOf(url)) could not be reached")
        }
    }

    /// Runs `body` until `deadline`, then cancels it: AsyncHTTPClient's own timeout covers
    /// only the wait for the response head.
    private func withDeadline<T: Sendable>(
        _ deadline: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T.self) { group in
            group.addTask(operation: body)
            group.addTask {
                try await Task.sleep(until: deadline)
                throw DeadlinePassed()
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw CancellationError() }
            return first
        }
    }

    private struct DeadlinePassed: Error {}

    /// Only the host goes into messages: URLs may carry query secrets.
    static func hostOf(_ url: String) -> String {
        URLComponents(string: url)?.host ?? "the identity provider"
    }
}
