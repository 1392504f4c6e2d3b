import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The device's HTTP calls to Fieldpass, over the app's `URLSession`.
struct FieldpassHTTP: Sendable {
    let server: URL
    let session: URLSession

    func url(_ path: String) -> URL {
        server.appendingPathComponent(path)
    }

    func postJSON(_ path: String, _ body: [String: Any]) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        return try await send(request)
    }

    /// An OAuth request (RFC 6749 appendix B): form fields, each value percent-encoded.
    func postForm(_ path: String, _ fields: KeyValuePairs<String, String>) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url(path))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(fields.map { "\($0)=\(Self.formEncoded($1))" }.joined(separator: "&").utf8)
        return try await send(request)
    }

    func get(_ url: URL, timeout: TimeInterval) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        request.timeoutInterval = timeout
        return try await send(request)
    }

    private func send(_ request: URLRequest) async throws -> (status: Int, body: Data) {
        var request = request
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw FieldpassClientError.unexpectedResponse(status: 0) }
        return (http.statusCode, data)
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
