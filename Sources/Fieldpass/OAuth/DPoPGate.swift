import FieldpassDomain
import Foundation
import HTTPTypes
import Hummingbird
import Tokens

/// Where a request's DPoP proof (RFC 9449) is checked: its one `DPoP` header and every check
/// of ``DPoPRules`` (the nonce among them, when `dpop.nonce` is on); its use is recorded in
/// the store, so that a proof works once across every instance: at the token endpoints in the
/// transaction of what it proves, at resources on its own. A refusal is counted by its
/// reason; the proof itself is never logged. The token endpoints answer a refusal with `400`
/// (§5), resources with `401` and a `DPoP` challenge (§7.1).
struct DPoPGate: Sendable {
    let store: any CredentialStore
    let settings: DPoPSettings
    /// The service's public base URL, which a proof's `htu` names.
    let publicURL: String
    /// Whose signing key the nonces are sealed under (``PublishedKeys/dpopNonces``).
    let keys: KeyRotation
    /// The devices' keys, parsed once each (every proof of a device carries the same key).
    let proofKeys = ProofKeyCache()

    /// The proof of `request` to the token endpoint at `path`, checked but for its replay,
    /// which the store's operation records; `nil` when it carries none and none is `required`.
    func proof(of request: Request, path: String, required: Bool = false) throws -> DPoPRules.AcceptedProof? {
        guard !request.headers[values: .dpop].isEmpty || required else { return nil }
        return try requiredProof(of: request, path: path)
    }

    /// The proof of `request` to `path`, which must carry one: checked but for its replay,
    /// which the store's operation records.
    func requiredProof(of request: Request, path: String) throws -> DPoPRules.AcceptedProof {
        do {
            return try check(request.headers[values: .dpop], method: request.method, url: publicURL + path)
        } catch {
            throw refused(error)
        }
    }

    /// Runs a store operation that records a token endpoint's proof, answering a proof it
    /// found used before as the endpoint answers any refusal.
    func recordingUse<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let refusal as DPoPRefusal {
            throw refused(refusal)
        }
    }

    /// Records the use of `proof`, for a request whose store operation does not: one used
    /// before is refused as a token endpoint refuses it.
    func takeUse(of proof: DPoPRules.AcceptedProof) async throws {
        try await recordingUse {
            guard try await store.recordDPoPProof(replayKey: proof.replayKey, expiresAt: proof.rememberUntil) else {
                throw DPoPRefusal.usedBefore
            }
        }
    }

    /// A token endpoint's answer to `refusal`, counted.
    private func refused(_ refusal: DPoPRefusal) -> APIError {
        FieldpassMetrics.dpopRefused(refusal.reason)
        let code: OAuthErrorCode = refusal.reason == .nonce ? .useDPoPNonce : .invalidDPoPProof
        return APIError(.badRequest, code, "DPoP proof refused: \(refusal.detail).")
    }

    /// Checks that `request` to a resource proves `accessToken`, which is bound to `key`.
    func proveResource(_ request: Request, accessToken: String, boundTo key: String) async throws {
        do {
            let accepted = try check(
                request.headers[values: .dpop], method: request.method, url: publicURL + request.uri.path,
                accessToken: accessToken, boundTo: key)
            guard try await store.recordDPoPProof(replayKey: accepted.replayKey, expiresAt: accepted.rememberUntil) else {
                throw DPoPRefusal.usedBefore
            }
        } catch let refusal as DPoPRefusal {
            FieldpassMetrics.dpopRefused(refusal.reason)
            let code: AuthErrorCode = refusal.reason == .nonce ? .useDPoPNonce : .invalidDPoPProof
            throw APIError(
                .unauthorized, code, "DPoP proof refused: \(refusal.detail).",
                headers: [.wwwAuthenticate: Self.challenge(error: code.rawValue)])
        }
    }

    /// The `WWW-Authenticate` challenge of a resource (RFC 9449 §7.1).
    static func challenge(error: String) -> String {
        #"DPoP algs="\#(DPoPProof.algorithms.map(\.rawValue).joined(separator: " "))", error="\#(error)""#
    }

    private func check(
        _ headers: [String], method: HTTPRequest.Method, url: String, accessToken: String? = nil, boundTo key: String? = nil
    ) throws(DPoPRefusal) -> DPoPRules.AcceptedProof {
        guard headers.count == 1 else { throw DPoPRefusal(.missing, "one DPoP header is needed") }
        let now = Date()
        let nonces = keys.published(now: now).dpopNonces
        return try DPoPRules.check(
            headers[0], method: method.rawValue, url: url, accessToken: accessToken, boundTo: key, settings: settings, now: now,
            nonceIsFresh: { nonces.isFresh($0, now: now, clockSkew: settings.clockSkew) }, keys: proofKeys)
    }
}

extension HTTPField.Name {
    /// RFC 9449 §4.1.
    static let dpop = HTTPField.Name("DPoP")!
    /// RFC 9449 §8.
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
}
