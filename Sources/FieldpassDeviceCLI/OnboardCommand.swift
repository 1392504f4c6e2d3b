import ArgumentParser
import CommandLineSupport
import FieldpassDevice
import Foundation

/// `fieldpass onboard EMAIL`: a real device, built on ``FieldpassClient`` as an app is. It
/// registers, prints the login URL, shows each event as it arrives and exits non-zero when
/// the sign-in fails or the session expires. With `--dpop` (or `--dpop-key FILE`) it proves its
/// calls with a DPoP key, as an app with a key does, and prints the key's thumbprint.
struct OnboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: DeviceCommandName.onboard.name, abstract: DeviceCommandName.onboard.abstract)

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

    @Flag(
        name: .long,
        help:
            "Prove the registration, refreshes and sign-out with a DPoP key (RFC 9449), as an app with a key does: the tokens are bound to it."
    )
    var dpop = false

    @Option(
        name: .long,
        help:
            "Keep the DPoP key in this file (PEM, mode 0600; made when missing), as an app keeps it; implies --dpop. By default the key lives in memory and is forgotten on exit."
    )
    var dpopKey: String?

    func validate() throws {
        // Bound tokens are worth nothing without their key: kept ones need a kept key.
        if dpop, tokenFile != nil, dpopKey == nil {
            throw ValidationError(
                "--token-file with --dpop needs --dpop-key FILE: the tokens are bound to the key, which is otherwise forgotten on exit.")
        }
    }

    func run() async throws {
        guard let url = URL(string: server), url.scheme == "http" || url.scheme == "https" else {
            throw CommandFailure("--server must be an http(s) URL, not '\(server)'")
        }
        let store: any TokenStore = tokenFile.map { FileTokenStore(path: $0) } ?? MemoryTokenStore()
        let key = try await deviceKey()
        let client = FieldpassClient(server: url, store: store, dpopKey: key)
        let onboarding: Onboarding
        do {
            onboarding = try await client.register(email: email, device: DeviceInfo(name: deviceName, platform: "cli"))
        } catch {
            throw CommandFailure("registration failed: \(OnboardingProgress.explain(error, server: server))")
        }
        Console.line("Session registered; it expires in \(Int(onboarding.expiresAt.timeIntervalSinceNow.rounded())) s.")
        // On a line of its own, to compare with the token's cnf.jkt and with /introspect.
        if let key { Console.line("DPoP key thumbprint: \(try key.thumbprint)") }
        Console.line("Code: \(onboarding.userCode)")
        Console.line("Login URL: \(onboarding.loginURL.absoluteString)")
        Console.line("Open the login URL in a browser, check that it shows the code above, and sign in. Waiting for events…")
        let progress = OnboardingProgress(keys: DeviceAPI(base: url.absoluteString), showToken: showToken)
        var bound = false
        do {
            for try await event in onboarding.events {
                if try await progress.show(event) { bound = true }
            }
        } catch {
            Console.line(OnboardingProgress.explain(error, server: server))
            throw ExitCode.failure
        }
        Console.line(nextStep(accessTokenBound: bound))
    }

    /// The device's DPoP key, when it proves its tokens: kept in `--dpop-key`'s file, or new.
    private func deviceKey() async throws -> SoftwareDPoPKey? {
        guard let dpopKey else { return dpop ? SoftwareDPoPKey() : nil }
        return try await DeviceKeyFile.loadOrCreate(dpopKey, remedy: "remove it and run again")
    }

    /// What a person can do with the device once it is onboarded. An access token bound to the
    /// key counts only with a new proof of the key for each call, which curl cannot make.
    private func nextStep(accessTokenBound: Bool) -> String {
        let token = showToken ? "the access token above" : "the access token (run again with --show-token to print it)"
        let call =
            accessTokenBound
            ? """
            Onboarded. Next: call the API as this device. Its access token is bound to the DPoP key (cnf.jkt above):
                \(server)/me takes it only as "Authorization: DPoP TOKEN" with a new proof of that key in a "DPoP" header
                for each call, which curl cannot make; an app makes them with FieldpassClient.dpopProof(method:url:accessToken:).
            """
            : """
            Onboarded. Next: call the API as this device, e.g. curl -H "Authorization: Bearer TOKEN" \(server)/me
                with \(token).
            """
        let refresh =
            (dpop || dpopKey != nil) && !accessTokenBound
            ? " The refresh token is bound to the DPoP key: a refresh needs a proof of it." : ""
        // The device is its installation id, which a run keeps only in the token file's folder.
        let kept =
            tokenFile.map { "The tokens are kept in \($0); a later run with the same file is the same device." }
            ?? "The tokens are forgotten now, and each run without --token-file is another device in the admin's list (fieldpass admin devices EMAIL): --token-file FILE keeps the tokens and the device's installation id, as an app does."
        return call + "\n    " + kept + refresh
    }
}
