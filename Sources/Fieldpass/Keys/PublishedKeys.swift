import FieldpassDomain
import Foundation
import Hummingbird
import Tokens

/// What the key schedule means at one moment, ready for requests: the signer, the
/// verifier over every published key, and the JWKS and metadata documents, encoded once.
struct PublishedKeys: Sendable {
    let ring: KeyRing
    let signer: JWTSigner
    let verifier: JWTVerifier
    let jwks: ByteBuffer
    let metadata: ByteBuffer
    /// DPoP nonces, sealed under the signing key's secret: every instance signing with the
    /// same key issues and accepts the same nonces.
    let dpopNonces: DPoPNonces
    /// When the schedule next changes by itself (a `next` key starts to sign, a removed
    /// key stops being published); `nil` if it does not.
    let validUntil: Date?

    init(schedule: KeySchedule, issuer: String, policy: JWTVerificationPolicy, now: Date) throws {
        ring = schedule.ring(at: now)
        signer = ring.signer
        verifier = ring.verifier(policy: policy)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        jwks = ByteBuffer(bytes: try encoder.encode(ring.jwks))
        let algorithms = Set(ring.jwks.keys.compactMap(\.alg)).sorted()
        metadata = ByteBuffer(bytes: try encoder.encode(AuthorizationServerMetadata(issuer: issuer, signingAlgorithms: algorithms)))
        validUntil = schedule.nextChange(after: now)
        dpopNonces = DPoPNonces(secrets: [ring.signingKey.derivedSecret(purpose: "dpop nonce")])
    }
}
