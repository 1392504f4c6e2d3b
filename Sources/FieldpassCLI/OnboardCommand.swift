import ArgumentParser
import FieldpassDevice
import Foundation

/// `fieldpass onboard EMAIL`: a real device, built on ``FieldpassClient`` as an app is. It
/// registers, prints the login URL, shows each event as it arrives and exits non-zero when
/// the sign-in fails or the session expires.
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

    @Option(
        name: .long, help: "Keep the device's tokens in this file (mode 0600), as an app keeps them; by default they are forgotten on exit."
    )
    var tokenFile: String?

    @Flag(name: .long, help: "Also print the access token, e.g. to call the admin API with it.")
    var showToken = false

    func run() async throws {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw CommandFailure("--server must be an http(s) URL, not '\(server)'")
        }
        let store: any TokenStore = tokenFile.map { FileTokenStore(path: $0) } ?? MemoryTokenStore()
        let client = FieldpassClient(server: url, store: store)
        let onboarding: Onboarding
        do {
            onboarding = try await client.register(email: email, device: DeviceInfo(name: deviceName, platform: "cli"))
        } catch {
            throw CommandFailure("registration failed: \(OnboardingProgress.explain(error, server: server))")
        }
        Console.line("Session registered; it expires in \(Int(onboarding.expiresAt.timeIntervalSinceNow.rounded())) s.")
        Console.line("Code: \(onboarding.userCode)")
        Console.line("Login URL: \(onboarding.loginURL.absoluteString)")
        Console.line("Open the login URL in a browser, check that it shows the code above, and sign in. Waiting for events…")
        let progress = OnboardingProgress(keys: DeviceAPI(base: url.absoluteString), showToken: showToken)
        do {
            for try await event in onboarding.events {
                try await progress.show(event)
            }
        } catch {
            Console.line(OnboardingProgress.explain(error, server: server))
            throw ExitCode.failure
        }
        Console.line(nextStep)
    }

    /// What a person can do with the device once it is onboarded.
    private var nextStep: String {
        let token = showToken ? "the access token above" : "the access token (run again with --show-token to print it)"
        let kept =
            tokenFile.map { "The tokens are kept in \($0); a later run with the same file is the same device." }
            ?? "The tokens are forgotten now: --token-file FILE keeps them, as an app does."
        return """
            Onboarded. Next: call the API as this device, e.g. curl -H "Authorization: Bearer TOKEN" \(server)/me
                with \(token). \(kept)
            """
    }
}
