import AsyncHTTPClient
import CommandLineSupport
import Fieldpass
import Foundation
import NIOCore
import NIOFoundationEssentialsCompat
import NIOHTTP1
import Tokens

/// The JWKS, fetched to check a device's token as a sync server would.
struct DeviceAPI: Sendable {
    let base: String

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
            throw CommandFailure(
                "cannot reach \(request.url): \(String(cString: strerror(error.errnoCode)).lowercased()); is Fieldpass running there?")
        } catch let error as HTTPClientError {
            throw CommandFailure("cannot reach \(request.url): \(error); is Fieldpass running there?")
        }
    }
}
