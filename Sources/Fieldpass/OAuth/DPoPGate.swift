import FieldpassDomain
import Foundation
import HTTPTypes
import Hummingbird
import Tokens

/// Where a request's DPoP proof (RFC 9449) is checked: its one `DPoP` header, every check of
/// ``DPoPRules`` (the nonce among them, when `dpop.nonce` is on), and its use recorded in the
/// store, so that a proof works once across every instance. A refusal is counted by its
/// reason; the proof itself is never logged. The token endpoints answer a refusal with
/// `400` (§5), resources with `401` and a `DPoP` challenge (§7.1).
struct DPoPGate: Sendable {
    let store: any CredentialStore
    let settings: DPoPSettings
    /// The service's public base URL, which a proof's `htu` names.
    let publicURL: String
    /// Whose signing key the nonces are sealed under (``PublishedKeys/dpopNonces``).
    let keys: KeyRotation

    /// The thumbprint of the key that proved `request` to the token endpoint at `path`, or
    /// `nil` when it carries no proof and none is `required`.
    func thumbprint(of request: Request, path: String, required: Bool = false) async throws -> String? {
        let headers = request.headers[values: .dpop]
        guard !headers.isEmpty || required else { return nil }
        do {
            return try await accept(headers, method: request.method, url: publicURL + path)
        } catch let refusal as DPoPRefusal {
            let code: OAuthErrorCode = refusal.reason == .nonce ? .useDPoPNonce : .invalidDPoPProof
            throw APIError(.badRequest, code, "DPoP proof refused: \(refusal.detail).")
        }
    }

    /// Checks that `request` to a resource proves `accessToken`, which is bound to `key`.
    func proveResource(_ request: Request, accessToken: String, boundTo key: String) async throws {
        do {
            _ = try await accept(
                request.headers[values: .dpop], method: request.method, url: publicURL + request.uri.path,
                accessToken: accessToken, boundTo: key)
        } catch let refusal as DPoPRefusal {
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

    private func accept(
        _ headers: [String], method: HTTPRequest.Method, url: String, accessToken: String? = nil, boundTo key: String? = nil
    ) async throws -> String {
        do {
            guard headers.count == 1 else { throw DPoPRefusal(.missing, "one DPoP header is needed") }
            let now = Date()
            let nonces = keys.published(now: now).dpopNonces
            let accepted = try DPoPRules.check(
                headers[0], method: method.rawValue, url: url, accessToken: accessToken, boundTo: key, settings: settings, now: now,
                nonceIsFresh: { nonces.isFresh($0, now: now, clockSkew: settings.clockSkew) })
            guard try await store.recordDPoPProof(replayKey: accepted.replayKey, expiresAt: accepted.rememberUntil) else {
                throw DPoPRefusal(.replayed, "the proof was used before")
            }
            return accepted.thumbprint
        } catch let refusal as DPoPRefusal {
            FieldpassMetrics.dpopRefused(refusal.reason)
            throw refusal
        }
    }
}

extension HTTPField.Name {
    /// RFC 9449 §4.1.
    static let dpop = HTTPField.Name("DPoP")!
    /// RFC 9449 §8.
    static let dpopNonce = HTTPField.Name("DPoP-Nonce")!
}
