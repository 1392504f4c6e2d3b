public import Foundation
package import Tokens

/// What a DPoP proof must show (RFC 9449 §4.3), decided once for every endpoint that takes
/// one: its form, algorithm, key and signature (``Tokens/DPoPProof``), then that it is this
/// request's (`htm`, `htu`), fresh (`iat`), for this token (`ath`), by this token's key, and
/// with a nonce the server gave when it asks for nonces. Whether its `jti` was used before
/// is the store's to say, across every instance, under ``AcceptedProof/replayKey``.
public enum DPoPRules {
    /// Seconds a proof's use is remembered past the last moment it would be accepted: an
    /// instance whose clock is behind the one that forgets the use by up to this much still
    /// refuses the proof again. Five minutes, well over the drift of clocks kept by NTP.
    public static let replayMargin = 300

    /// A proof that passed every check but the replay, which the store decides in the
    /// transaction of what the proof is for: the proof's use is remembered with it, or, used
    /// before, refused (``DPoPRefusal/Reason/replayed``) with nothing written.
    public struct AcceptedProof: Sendable, Equatable {
        /// The key's RFC 7638 thumbprint, which a token is bound to (`cnf.jkt`).
        public let thumbprint: String
        /// What the store remembers the proof's use by: a hash of its key and `jti`, so that
        /// no proof is stored and one key's `jti` cannot stand in for another's.
        public let replayKey: String
        /// Until when the proof's use is remembered: past the last moment it would be accepted,
        /// by ``replayMargin``.
        public let rememberUntil: Date

        public init(thumbprint: String, replayKey: String, rememberUntil: Date) {
            self.thumbprint = thumbprint
            self.replayKey = replayKey
            self.rememberUntil = rememberUntil
        }
    }

    /// Checks `proof` (the request's one `DPoP` header, `nil` when there is none) for a
    /// request of `method` to `url`. `accessToken` is the token presented with it, whose hash
    /// `ath` must be; `boundTo` the thumbprint a bound token requires.
    package static func check(
        _ proof: String?, method: String, url: String, accessToken: String? = nil, boundTo expected: String? = nil,
        settings: DPoPSettings, now: Date, nonceIsFresh: (String) -> Bool = { _ in false }, keys: ProofKeyCache = ProofKeyCache(capacity: 1)
    ) throws(DPoPRefusal) -> AcceptedProof {
        guard let proof else { throw DPoPRefusal(.missing, "no DPoP proof") }
        let verified = try verify(proof, keys: keys)
        guard verified.htm == method else { throw DPoPRefusal(.target, "htm is not this request's method") }
        guard let stated = DPoPTarget.normalized(verified.htu), stated == DPoPTarget.normalized(url) else {
            throw DPoPRefusal(.target, "htu is not this request's URL")
        }
        let age = now.timeIntervalSince1970 - verified.iat
        guard age <= Double(settings.proofLifetime + settings.clockSkew) else { throw DPoPRefusal(.time, "the proof is too old") }
        guard age >= -Double(settings.clockSkew) else { throw DPoPRefusal(.time, "the proof is from the future") }
        if let accessToken {
            guard let ath = verified.ath, ath == Crypto.base64URLEncode(Crypto.sha256(accessToken.utf8)) else {
                throw DPoPRefusal(.tokenHash, "ath is not the access token's hash")
            }
        }
        if let expected, verified.thumbprint != expected { throw DPoPRefusal(.wrongKey, "the proof is by another key than the token's") }
        if settings.nonce {
            guard let nonce = verified.nonce, nonceIsFresh(nonce) else { throw DPoPRefusal(.nonce, "a fresh server nonce is needed") }
        }
        return AcceptedProof(
            thumbprint: verified.thumbprint,
            replayKey: Crypto.base64URLEncode(Crypto.sha256("\(verified.thumbprint) \(verified.jti)".utf8)),
            rememberUntil: Date(timeIntervalSince1970: verified.iat + Double(settings.proofLifetime + settings.clockSkew + replayMargin)))
    }

    /// The proof's form, key and signature, with a refusal that says which failed.
    private static func verify(_ proof: String, keys: ProofKeyCache) throws(DPoPRefusal) -> DPoPProof {
        do {
            return try DPoPProof(verifying: proof, keys: keys)
        } catch .algorithmNotAllowed(let alg) {
            throw DPoPRefusal(.algorithm, "proofs are not signed with \(alg)")
        } catch .invalidSignature {
            throw DPoPRefusal(.signature, "the signature does not verify with the proof's key")
        } catch {
            throw DPoPRefusal(.malformed, error.description)
        }
    }
}
