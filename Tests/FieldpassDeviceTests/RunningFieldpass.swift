import Foundation
import Tokens

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real `fieldpass serve` in a folder of its own (configuration, key, SQLite file), on a
/// loopback port that stays the same across restarts, as a device sees a server come back.
final class RunningFieldpass: @unchecked Sendable {
    static let backendSecret = "device-tests-backend-secret-0123456789"

    let folder: URL
    let url: URL
    private var process: ServerProcess?

    /// Writes the configuration for an environment signing in at `issuer` and starts the server.
    /// `limits` is the configuration's `limits` section, as YAML flow (`{events: {burst: 1}}`);
    /// `dpop` its `dpop` section, if any, and `sharedDevices` its `shared_devices` section; it
    /// signs with a new key of `algorithm`.
    init(
        issuer: String, sessionTTL: Int = 600, limits: String = "{}", dpop: String? = nil, sharedDevices: String? = nil,
        algorithm: SigningAlgorithm = .es256
    ) async throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-device-\(UUID().uuidString)")
        let keys = folder.appendingPathComponent("keys")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: keys.path)
        let pem = keys.appendingPathComponent("signing.pem").path
        _ = FileManager.default.createFile(
            atPath: pem, contents: Data(try SigningKey.generate(algorithm).pkcs8PEM().utf8), attributes: [.posixPermissions: 0o600]
        )
        let port = try FreePort.take()
        url = URL(string: "http://127.0.0.1:\(port)")!
        let configuration = """
            server: {host: 127.0.0.1, port: \(port), public_url: "\(url.absoluteString)", drain_time: 0}
            storage: {sqlite_path: "\(folder.path)/fieldpass.sqlite"}
            tokens: {keys_dir: "\(keys.path)", access_token_ttl: 600, refresh_reuse_grace: 0}
            sessions: {ttl: \(sessionTTL), sweep_interval: 1}
            limits: \(limits)
            \(dpop.map { "dpop: \($0)" } ?? "")
            \(sharedDevices.map { "shared_devices: \($0)" } ?? "")
            environments:
              - id: dev
                email_domains: [example.com]
                confirm_device: false
                service_accounts:
                  - id: backend
                    secret_env: DEVICE_TESTS_BACKEND_SECRET
                idp: {issuer: "\(issuer)", client_id: \(MiniIdP.clientID), client_secret_env: DEVICE_TESTS_IDP_SECRET}
            """
        try configuration.write(to: folder.appendingPathComponent("fieldpass.yaml"), atomically: true, encoding: .utf8)
        try await start()
    }

    /// The binary beside this test bundle, or `FIELDPASS_BIN`.
    static var binary: URL {
        if let path = ProcessInfo.processInfo.environment["FIELDPASS_BIN"] { return URL(fileURLWithPath: path) }
        return URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("fieldpass")
    }

    private var environment: [String: String] {
        [
            "PATH": "/usr/bin:/bin", "DEVICE_TESTS_IDP_SECRET": MiniIdP.clientSecret,
            "DEVICE_TESTS_BACKEND_SECRET": Self.backendSecret,
        ]
    }

    private var configuration: String { folder.appendingPathComponent("fieldpass.yaml").path }

    func start() async throws {
        let log = folder.appendingPathComponent("server.log")
        let process = try ServerProcess(Self.binary.path, ["serve", "--config", configuration], environment: environment, output: log.path)
        self.process = process
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let (status, _) = try? await HTTP.get(url.appendingPathComponent("readyz")), status == 200 { return }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw ServerFailed(log: (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }

    /// What `fieldpass ARGUMENTS` prints (stdout and stderr) run on this server's
    /// configuration and store, as an operator on the machine runs it.
    func command(_ arguments: [String]) async throws -> String {
        let output = folder.appendingPathComponent("command-\(UUID().uuidString).log")
        let process = try ServerProcess(
            Self.binary.path, arguments + ["--config", configuration], environment: environment, output: output.path)
        while process.isRunning { try await Task.sleep(for: .milliseconds(20)) }
        return try String(contentsOf: output, encoding: .utf8)
    }

    /// Kills the process at once, as a crash or a lost machine would.
    func kill() {
        process?.kill()
        process = nil
    }

    /// Stops the server and removes its folder.
    func remove() {
        kill()
        try? FileManager.default.removeItem(at: folder)
    }

    struct ServerFailed: Error, CustomStringConvertible {
        let log: String
        var description: String { "fieldpass serve did not become ready:\n\(log)" }
    }
}
