import Fieldpass
import FieldpassDomain
import Foundation
import Tokens

/// Follows the event socket as a device would and tells the person each step.
actor OnboardingProgress {
    private let api: DeviceAPI
    private let showToken: Bool
    private(set) var succeeded = false

    /// With `showToken`, the access token itself is printed too (it is a secret: only on request).
    init(api: DeviceAPI, showToken: Bool) {
        self.api = api
        self.showToken = showToken
    }

    func handle(frame: String) async throws {
        let event = try JSONDecoder().decode(EventFrame.self, from: Data(frame.utf8))
        switch event.type {
        case "token":
            Console.line("[\(event.seq)] Token received (expires in \(event.expiresIn ?? 0) s).")
            if let token = event.accessToken {
                try await printClaims(of: token)
                if showToken { Console.line("    Access token: \(token)") }
            }
        case "realm_initialized":
            Console.line("[\(event.seq)] Realm initialized: \(event.realmPath ?? "?")")
            Console.line("    Waiting for the backend to fill it (fieldpass realms mark-initialized \(event.realmPath ?? "PATH")).")
        case "data_ready":
            Console.line("[\(event.seq)] Data ready: \(event.realmPath ?? "?")")
            succeeded = true
        case "login_failed":
            Console.line("[\(event.seq)] Sign-in failed: \(event.error ?? "?"): \(event.errorDescription ?? "")")
        case "session_expired":
            Console.line("[\(event.seq)] Session expired. Register again.")
        default:
            Console.line("[\(event.seq)] \(event.type)")
        }
    }

    /// Verifies the token against the service's published keys, as a sync server would.
    private func printClaims(of token: String) async throws {
        let keys = try await api.keySet().keys.compactMap { try? VerificationKey(jwk: $0) }
        let verified = try JWTVerifier(keys: keys, policy: JWTVerificationPolicy()).verify(token)
        let object = try JSONSerialization.jsonObject(with: verified.payload)
        let pretty = try JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        Console.line("    Signature verified with key \(verified.kid ?? "?"). Claims:")
        Console.line(String(decoding: pretty, as: UTF8.self).split(separator: "\n").map { "    " + $0 }.joined(separator: "\n"))
    }
}
