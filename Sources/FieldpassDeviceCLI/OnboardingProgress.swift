import CommandLineSupport
import FieldpassDevice
import Foundation
import Tokens

/// Tells the person each step of an onboarding as ``FieldpassClient`` reports it.
struct OnboardingProgress {
    let keys: DeviceAPI
    /// Whether the access token itself is printed too (it is a secret: only on request).
    let showToken: Bool

    init(keys: DeviceAPI, showToken: Bool) {
        self.keys = keys
        self.showToken = showToken
    }

    /// Shows the event; of a token, answers whether its access token is bound to the device's
    /// key (`cnf.jkt` among its claims), which decides how the API takes it.
    @discardableResult func show(_ event: OnboardingEvent) async throws -> Bool {
        switch event {
        case .signedIn(let tokens):
            Console.line("Token received (expires in \(Int(tokens.expiresAt.timeIntervalSinceNow.rounded())) s).")
            let bound = try await printClaims(of: tokens.accessToken)
            if showToken { Console.line("    Access token: \(tokens.accessToken)") }
            return bound
        case .realmInitialized(let path):
            Console.line("Realm initialized: \(path)")
            Console.line("    Waiting for the backend to fill it (fieldpass realms mark-initialized \(path)).")
        case .dataReady(let path):
            Console.line("Data ready: \(path)")
        }
        return false
    }

    /// What went wrong, in words, with what to do next.
    static func explain(_ error: any Error, server: String) -> String {
        switch error {
        case OnboardingError.loginFailed(let code, let description):
            "Sign-in failed: \(code): \(description ?? "")"
        case OnboardingError.sessionExpired:
            "Session expired. Register again."
        case FieldpassClientError.server(let status, let code, let description):
            "HTTP \(status): \(code) \(description ?? "")"
        case FieldpassClientError.unexpectedResponse(let status):
            "unexpected answer (HTTP \(status)) from \(server); is Fieldpass running there?"
        case let error as URLError:
            "cannot reach \(error.failingURL?.absoluteString ?? server): \(reason(error)); is Fieldpass running there?"
        default:
            "\(error)"
        }
    }

    /// A network failure in the words of `strerror`, as the rest of the CLI says them.
    private static func reason(_ error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: "connection refused"
        case .timedOut: "timed out"
        case .cannotFindHost, .dnsLookupFailed: "host not found"
        case .networkConnectionLost: "connection lost"
        default: error.localizedDescription
        }
    }

    /// Verifies the token against the service's published keys, as a sync server would; answers
    /// whether it is bound to a key (`cnf`).
    private func printClaims(of token: String) async throws -> Bool {
        let keys = try await keys.keySet().keys.compactMap { try? VerificationKey(jwk: $0) }
        let verified = try JWTVerifier(keys: keys, policy: JWTVerificationPolicy()).verify(token)
        let object = try JSONSerialization.jsonObject(with: verified.payload)
        let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        Console.line("    Signature verified with key \(verified.kid ?? "?"). Claims:")
        Console.line(String(decoding: pretty, as: UTF8.self).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
        return (object as? [String: Any])?["cnf"] != nil
    }
}
