public import Foundation

/// Verifies compact JWS tokens against a set of keys.
public struct JWTVerifier: Sendable {
    /// Longest token accepted; bigger inputs are rejected before any parsing.
    public static let maximumTokenLength = 16 * 1024

    /// Candidate keys, in the order given.
    public let keys: [VerificationKey]
    /// What a valid token must satisfy.
    public let policy: JWTVerificationPolicy
    /// What checks the signature.
    public let backend: SignatureBackend

    /// Creates a verifier; with duplicate kids the first key wins. The parsed keys are the
    /// fast path for our own tokens; libjwt serves keys that are used once or twice.
    public init(keys: [VerificationKey], policy: JWTVerificationPolicy, backend: SignatureBackend = .parsedKey) {
        self.keys = keys
        self.policy = policy
        self.backend = backend
    }

    /// Verifies signature and claims. The header's `alg` is checked against the policy and
    /// the selected key before any signature check, so "none", HS* and key confusion are
    /// rejected with `algorithmNotAllowed`; time, issuer and audience checks follow.
    public func verify(_ token: String, now: Date = Date()) throws(TokenError) -> VerifiedToken {
        guard token.utf8.count <= Self.maximumTokenLength else { throw .malformed("token too large") }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw .malformed("expected three dot-separated parts")
        }
        let header = try JOSEHeader(segment: parts[0])
        guard let alg = header.alg else { throw .malformed("header has no alg") }
        let algorithm = try allowedAlgorithm(alg, reported: alg)
        // Every alg the header states must pass, so a repeated one cannot pick another
        // algorithm for a parser that keeps the last member (libjwt's jansson does).
        for stated in header.algorithms { _ = try allowedAlgorithm(stated, reported: alg) }
        if let name = header.duplicateName { throw .malformed("header repeats \"\(name)\"") }
        if let crit = header.crit { throw .malformed("unsupported critical header parameters \(crit)") }
        if let type = policy.type, header.typ?.lowercased() != type.lowercased() {
            throw .malformed("header typ is not \(type)")
        }
        let key = try selectKey(kid: header.kid, algorithm: algorithm)
        // Checked after alg so that unsigned ("none") tokens report the algorithm.
        guard !parts[2].isEmpty, let signature = Crypto.base64URLDecode(parts[2]) else {
            throw .malformed("signature is missing or not base64url")
        }
        guard let payload = Crypto.base64URLDecode(parts[1]) else {
            throw .malformed("payload is not base64url")
        }
        switch backend {
        case .libjwt:
            try LibJWT.verify(token: token, algorithm: algorithm, publicPEM: key.publicPEM)
        case .parsedKey:
            let signingInput = token.utf8.prefix(parts[0].utf8.count + 1 + parts[1].utf8.count)
            guard key.parsed.verify(signature, of: Array(signingInput)) else { throw .invalidSignature }
        }
        // Claims come from the exact bytes whose signature was just checked.
        let payloadData = Data(payload)
        let claims = try JSON.decode(RegisteredClaims.self, from: payloadData, context: "claims")
        try policy.check(claims, now: now)
        return VerifiedToken(kid: header.kid, algorithm: algorithm, claims: claims, payload: payloadData)
    }

    /// The algorithm `stated` names when the policy allows it, else `algorithmNotAllowed`
    /// (naming `reported` when `stated` is not a string).
    private func allowedAlgorithm(_ stated: String?, reported: String) throws(TokenError) -> SigningAlgorithm {
        guard let stated, let algorithm = SigningAlgorithm(rawValue: stated), policy.allowedAlgorithms.contains(algorithm) else {
            throw .algorithmNotAllowed(stated ?? reported)
        }
        return algorithm
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
