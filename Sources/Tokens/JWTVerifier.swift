public import Foundation

/// Verifies compact JWS tokens against a set of keys.
public struct JWTVerifier: Sendable {
    /// Longest token accepted; bigger inputs are rejected before any parsing.
    public static let maximumTokenLength = 16 * 1024

    /// Candidate keys, in the order given.
    public let keys: [VerificationKey]
    /// What a valid token must satisfy.
    public let policy: JWTVerificationPolicy

    /// Creates a verifier; with duplicate kids the first key wins.
    public init(keys: [VerificationKey], policy: JWTVerificationPolicy) {
        self.keys = keys
        self.policy = policy
    }

    /// Verifies signature and claims. The header's `alg` is checked against the policy and
    /// the selected key before libjwt sees the token, so "none", HS* and key confusion are
    /// rejected with `algorithmNotAllowed`; time, issuer and audience checks follow.
    public func verify(_ token: String, now: Date = Date()) throws(TokenError) -> VerifiedToken {
        guard token.utf8.count <= Self.maximumTokenLength else { throw .malformed("token too large") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .malformed("expected three dot-separated parts")
        }
        let header = try JOSEHeader(segment: parts[0])
        guard let alg = header.alg else { throw .malformed("header has no alg") }
        guard let algorithm = SigningAlgorithm(rawValue: alg), policy.allowedAlgorithms.contains(algorithm) else {
            throw .algorithmNotAllowed(alg)
        }
        if let crit = header.crit { throw .malformed("unsupported critical header parameters \(crit)") }
        let key = try selectKey(kid: header.kid, algorithm: algorithm)
        // Checked after alg so that unsigned ("none") tokens report the algorithm.
        guard !parts[2].isEmpty, Crypto.base64URLDecode(String(parts[2])) != nil else {
            throw .malformed("signature is missing or not base64url")
        }
        guard let payload = Crypto.base64URLDecode(String(parts[1])) else {
            throw .malformed("payload is not base64url")
        }
        try LibJWT.verify(token: token, algorithm: algorithm, publicPEM: key.publicPEM)
        // Claims come from the exact bytes whose signature libjwt just checked.
        let payloadData = Data(payload)
        let claims = try JSON.decode(RegisteredClaims.self, from: payloadData, context: "claims")
        try policy.check(claims, now: now)
        return VerifiedToken(kid: header.kid, algorithm: algorithm, claims: claims, payload: payloadData)
    }

    /// The key named by `kid`, or the only key for `algorithm` when the token names none.
    private func selectKey(kid: String?, algorithm: SigningAlgorithm) throws(TokenError) -> VerificationKey {
        guard let kid else {
            let candidates = keys.filter { $0.algorithm == algorithm }
            guard candidates.count == 1 else { throw .unknownKey("") }
            return candidates[0]
        }
        guard let key = keys.first(where: { $0.kid == kid }) else { throw .unknownKey(kid) }
        guard key.algorithm == algorithm else { throw .algorithmNotAllowed(algorithm.rawValue) }
        return key
    }
}
