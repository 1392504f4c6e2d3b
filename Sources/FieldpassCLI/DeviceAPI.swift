import AsyncHTTPClient
import Fieldpass
import Foundation
import NIOCore
import Tokens

/// The two HTTP calls a device makes: register, and fetch the JWKS to check its token.
struct DeviceAPI: Sendable {
    let base: String

    struct APIErrorBody: Decodable {
        var error: String
        var errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }
    }

    func register(email: String, deviceName: String) async throws -> RegistrationResponse {
        var request = HTTPClientRequest(url: base + "/register_device")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        let body: [String: Any] = ["email": email, "device": ["name": deviceName, "platform": "cli"]]
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: body)))
        let (status, data) = try await send(request)
        guard status == 201 else {
            let problem = try? JSONDecoder().decode(APIErrorBody.self, from: data)
            throw CommandFailure("registration failed (HTTP \(status)): \(problem?.error ?? "unknown") \(problem?.errorDescription ?? "")")
        }
        return try JSONDecoder().decode(RegistrationResponse.self, from: data)
    }

    func keySet() async throws -> JWKSet {
        let (status, data) = try await send(HTTPClientRequest(url: base + "/.well-known/jwks.json"))
        guard status == 200 else { throw CommandFailure("JWKS request failed (HTTP \(status))") }
        return try JSONDecoder().decode(JWKSet.self, from: data)
    }

    /// Status and body; a server that cannot be reached is a failure naming the URL tried.
    private func send(_ request: HTTPClientRequest) async throws -> (Int, Data) {
        do {
            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(15))
            let body = try await response.body.collect(upTo: 1 << 20)
            return (Int(response.status.code), Data(buffer: body))
        } catch let error as IOError {
            throw CommandFailure("cannot reach \(request.url): \(String(cString: strerror(error.errnoCode)).lowercased()); is Fieldpass running there?")
        } catch let error as HTTPClientError {
            throw CommandFailure("cannot reach \(request.url): \(error); is Fieldpass running there?")
        }
    }
}
