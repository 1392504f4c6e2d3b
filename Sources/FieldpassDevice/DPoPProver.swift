import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A client's proofs: its key, and the nonce Fieldpass sent last (RFC 9449 §8), which every
/// proof carries from then on. Shared by every call of the client, events polls included,
/// since any answer may bring a fresh nonce.
final class DPoPProver: Sendable {
    let builder: DPoPProofBuilder
    private let lastNonce = LockedValue<String?>(nil)

    init(key: any DPoPKey) {
        builder = DPoPProofBuilder(key: key)
    }

    /// The nonce to send, if Fieldpass has given one.
    var nonce: String? { lastNonce.value }

    /// Keeps the nonce of an answer, the latest one winning.
    func keep(_ nonce: String) {
        lastNonce.value = nonce
    }

    /// A proof for `request`, with the nonce kept so far.
    func proof(for request: URLRequest) async throws -> String {
        guard let url = request.url else { throw URLError(.badURL) }
        return try await builder.proof(method: request.httpMethod ?? "GET", url: url, nonce: nonce)
    }
}

/// A value behind a lock: `NSLock` rather than `Synchronization.Mutex`, which iOS has only
/// from 18.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) {
        stored = value
    }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
