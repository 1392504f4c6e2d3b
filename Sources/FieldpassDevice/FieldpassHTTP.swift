import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device's HTTP calls to Fieldpass, over the app's `URLSession`. With a DPoP key every
/// POST (registration, refresh, revocation: the calls that use or bind the device's tokens)
/// carries a proof, and every answer's `DPoP-Nonce` is kept for the next proof.
struct FieldpassHTTP: Sendable {
    let server: URL
    let session: URLSession
    let prover: DPoPProver?

    func url(_ path: String) -> URL {
        server.appendingPathComponent(path)
    }

    func postJSON(_ path: String, _ body: [String: Any]) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        return try await sendProven(request)
    }

    /// An OAuth request (RFC 6749 appendix B): form fields, each value percent-encoded.
    func postForm(_ path: String, _ fields: KeyValuePairs<String, String>) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(fields.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&").utf8)
        return try await sendProven(request)
    }

    /// A `method` request to `url` with no body, proven when the client has a key.
    func proven(_ method: String, _ url: URL, timeout: TimeInterval = 60) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = timeout
        return try await sendProven(request)
    }

    func get(_ url: URL, timeout: TimeInterval) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        return try await send(request)
    }

    /// `request` with a proof when the client has a key. Refused with `use_dpop_nonce` (RFC 9449
    /// §8), it is sent once more with a new proof carrying the nonce that answer gave; a second
    /// refusal is the caller's.
    private func sendProven(_ request: URLRequest) async throws -> (status: Int, body: Data) {
        guard let prover else { return try await send(request) }
        var request = request
        request.setValue(try await prover.proof(for: request), forHTTPHeaderField: "DPoP")
        let first = try await exchange(request)
        guard first.nonce != nil, Self.asksForNonce(first.status, first.body) else { return (first.status, first.body) }
        request.setValue(try await prover.proof(for: request), forHTTPHeaderField: "DPoP")
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
        let answer = try await exchange(request)
        return (answer.status, answer.body)
    }

    /// One request and its answer: its status, body and `DPoP-Nonce`, which is kept.
    private func exchange(_ request: URLRequest) async throws -> (status: Int, body: Data, nonce: String?) {
        var request = request
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw FieldpassClientError.unexpectedResponse(status: 0) }
        let nonce = http.value(forHTTPHeaderField: "DPoP-Nonce")
        if let prover, let nonce { prover.keep(nonce) }
        return (http.statusCode, data, nonce)
    }

    /// Whether an answer asks for a proof with a nonce: `use_dpop_nonce`, as the token
    /// endpoint's error (400) or a resource's (401).
    private static func asksForNonce(_ status: Int, _ body: Data) -> Bool {
        guard status == 400 || status == 401, case .server(_, "use_dpop_nonce", _) = failure(status: status, body: body) else {
            return false
        }
        return true
    }

    /// The error an answer other than the one expected stands for.
    static func failure(status: Int, body: Data) -> FieldpassClientError {
        struct Problem: Decodable {
            var error: String
            var error_description: String?
        }
        guard let problem = try? JSONDecoder().decode(Problem.self, from: body) else {
            return .unexpectedResponse(status: status)
        }
        return .server(status: status, error: problem.error, description: problem.error_description)
    }

    /// Whether a failed call is worth repeating: the network, a server restarting or busy.
    static func isTransient(_ error: any Error) -> Bool {
        switch error {
        case is URLError: true
        case FieldpassClientError.server(let status, _, _), FieldpassClientError.unexpectedResponse(let status):
            status == 429 || status >= 500
        default: false
        }
    }

    private static func formEncoded(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }
}
