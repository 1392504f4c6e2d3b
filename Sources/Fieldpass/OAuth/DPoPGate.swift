import FieldpassDomain
import Foundation
import HTTPTypes
import Hummingbird
import Tokens

/// Where a request's DPoP proof (RFC 9449) is checked: its one `DPoP` header, every check of
/// ``DPoPRules``, and its use recorded in the store, so that a proof works once across every
/// instance. A proof that fails is `400 invalid_dpop_proof`, and the refusal is counted by
/// its reason; the proof itself is never logged.
struct DPoPGate: Sendable {
    let store: any CredentialStore
    let settings: DPoPSettings
    /// The service's public base URL, which a proof's `htu` names.
    let publicURL: String

    /// The thumbprint of the key that proved `request` to `path`, or `nil` when it carries no
    /// proof and none is `required`.
    func thumbprint(of request: Request, path: String, required: Bool = false) async throws -> String? {
        let headers = request.headers[values: .dpop]
        guard !headers.isEmpty || required else { return nil }
        do {
            guard headers.count == 1 else { throw DPoPRefusal(.missing, "one DPoP header is needed") }
            let accepted = try DPoPRules.check(
                headers[0], method: request.method.rawValue, url: publicURL + path, settings: settings, now: Date())
            guard try await store.recordDPoPProof(replayKey: accepted.replayKey, expiresAt: accepted.rememberUntil) else {
                throw DPoPRefusal(.replayed, "the proof was used before")
            }
            return accepted.thumbprint
        } catch let refusal as DPoPRefusal {
            FieldpassMetrics.dpopRefused(refusal.reason)
            throw APIError(.badRequest, OAuthErrorCode.invalidDPoPProof, "DPoP proof refused: \(refusal.detail).")
        }
    }
}

extension HTTPField.Name {
    /// RFC 9449 §4.1.
    static let dpop = HTTPField.Name("DPoP")!
}
