import FieldpassDevice
import Foundation
import Testing

/// `SharedDevice` against the real `fieldpass serve`: the code an operator was shown enrolls
/// the device's key once.
@Suite struct SharedDeviceTests {
    /// A code from `fieldpass shared-devices enroll`, and the device id it printed.
    private static func enrollment(_ server: RunningFieldpass, name: String) async throws -> (code: String, deviceID: String) {
        let output = try await server.command(["shared-devices", "enroll", "--name", name])
        let lines = output.split(separator: "\n").map(String.init)
        let code = try #require(lines.first { $0.hasPrefix("Enrollment code, shown this once: ") }?.split(separator: " ").last, "\(output)")
        let named = try #require(lines.first { $0.hasPrefix("\(name) (") }, "\(output)")
        let deviceID = try #require(named.split(separator: "(").dropFirst().first?.split(separator: ")").first, "\(output)")
        return (String(code), String(deviceID))
    }

    @Test(arguments: [nil, "{nonce: true}"]) func aCodeEnrollsTheDevicesKeyOnce(dpop: String?) async throws {
        try await withServer(dpop: dpop) { server in
            let (code, deviceID) = try await Self.enrollment(server, name: "Van 12")
            let van = SharedDevice(server: server.url, key: SoftwareDPoPKey())
            // As a person types it off the console: lower case, spaces for dashes.
            let identity = try await van.enroll(code: code.lowercased().replacingOccurrences(of: "-", with: " "))
            #expect(identity.deviceID == deviceID && identity.environment == "dev")

            let other = SharedDevice(server: server.url, key: SoftwareDPoPKey())
            let refused = await #expect(throws: FieldpassClientError.self) { _ = try await other.enroll(code: code) }
            guard case .server(400, "invalid_grant", _) = refused else {
                Issue.record("a used code was answered \(String(describing: refused))")
                return
            }
        }
    }
}
