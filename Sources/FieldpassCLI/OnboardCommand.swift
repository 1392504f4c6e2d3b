import ArgumentParser
import AsyncHTTPClient
import Foundation
import HummingbirdWSClient
import Logging
import NIOCore
import Tokens

/// `fieldpass onboard EMAIL`: a real device. It registers, prints the login URL, shows each
/// event as it arrives and exits non-zero when the sign-in fails or the session expires.
struct OnboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "onboard", abstract: "Onboard a device as a field worker's app would."
    )

    @Argument(help: "The worker's email address.")
    var email: String

    @Option(name: .long, help: "Base URL of the Fieldpass service.")
    var server = "http://127.0.0.1:8080"

    @Option(name: .long, help: "Device name sent at registration.")
    var deviceName = "fieldpass-cli"

    @Flag(name: .long, help: "Also print the access token, e.g. to call the admin API with it.")
    var showToken = false

    func run() async throws {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        let registration = try await DeviceAPI(base: base).register(email: email, deviceName: deviceName)
        Console.line("Session registered; it expires in \(registration.expiresIn) s.")
        Console.line("Code: \(registration.userCode)")
        Console.line("Login URL: \(registration.loginURL)")
        Console.line("Open the login URL in a browser, check that it shows the code above, and sign in. Waiting for events…")
        let progress = OnboardingProgress(api: DeviceAPI(base: base), showToken: showToken)
        let client = WebSocketClient(url: registration.websocketURL, logger: Logger(label: "fieldpass.onboard")) { inbound, _, _ in
            for try await message in inbound.messages(maxSize: 1 << 20) {
                guard case .text(let text) = message else { continue }
                try await progress.handle(frame: text)
            }
        }
        try await client.run()
        guard await progress.succeeded else { throw ExitCode.failure }
    }
}
