import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The test's own calls: a browser's GET (redirects followed), and the backend's and the
/// sync server's requests, each through Fieldpass's public API.
enum HTTP {
    static func get(_ url: URL, headers: [String: String] = [:]) async throws -> (Int, Data) {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        return try await send(request)
    }

    static func post(
        _ url: URL, form: String, basic: (String, String)? = nil, bearer: String? = nil, json: Bool = false
    ) async throws -> (Int, Data) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(form.utf8)
        request.setValue(json ? "application/json" : "application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        if let (user, password) = basic {
            request.setValue("Basic " + Data("\(user):\(password)".utf8).base64EncodedString(), forHTTPHeaderField: "Authorization")
        }
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        return try await send(request)
    }

    private static func send(_ request: URLRequest) async throws -> (Int, Data) {
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}
