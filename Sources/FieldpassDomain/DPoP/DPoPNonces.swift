package import Foundation
import Tokens

/// The server's DPoP nonces (RFC 9449 §8), derived rather than kept: a nonce is its time of
/// issue sealed (AES-256-GCM) under a key every instance derives from the same secret (the
/// signing key's), so any instance accepts any instance's nonces without a table. A nonce is
/// fresh for ``lifetime`` seconds after its issue; one the server did not make does not open.
package struct DPoPNonces: Sendable {
    /// How long a nonce is accepted: long enough for a device's retry and the next few calls.
    package static let lifetime: TimeInterval = 300

    /// The first key issues; every key opens, so that a nonce outlives a change of keys.
    private let keys: [[UInt8]]

    /// `secrets`: what every instance has alike, the one that issues first.
    package init(secrets: [[UInt8]]) {
        keys = secrets.map { Crypto.sha256(Array("fieldpass dpop nonce v1".utf8) + $0) }
    }

    package func issue(now: Date) throws -> String {
        guard let key = keys.first else { throw TokenError.crypto("no key to seal a DPoP nonce with") }
        return Crypto.base64URLEncode(try SealedBox.seal(Array(String(Int64(now.timeIntervalSince1970)).utf8), key: key))
    }

    /// Whether `nonce` is one of ours, issued within ``lifetime`` (and not after `now`, give
    /// or take `clockSkew` between instances).
    package func isFresh(_ nonce: String, now: Date, clockSkew: Int) -> Bool {
        guard nonce.utf8.count <= 128, let box = Crypto.base64URLDecode(nonce) else { return false }
        for key in keys {
            guard let opened = SealedBox.open(box, key: key) else { continue }
            guard let issued = Int64(String(decoding: opened, as: UTF8.self)) else { return false }
            let age = now.timeIntervalSince1970 - Double(issued)
            return age >= -Double(clockSkew) && age <= Self.lifetime
        }
        return false
    }
}
