public import Foundation

/// What verification requires beyond a valid signature.
public struct JWTVerificationPolicy: Sendable {
    /// When set, `iss` must equal it exactly.
    public var issuer: String?
    /// When set, `aud` must contain it.
    public var audience: String?
    /// Clock skew tolerated for exp, nbf and iat, in seconds.
    public var leeway: TimeInterval
    /// When true, a token without `exp` fails with `missingClaim("exp")`.
    public var requireExpiry: Bool
    /// Header algorithms accepted.
    public var allowedAlgorithms: Set<SigningAlgorithm>

    /// Creates a policy; the defaults require expiry, allow 60 s skew and both algorithms.
    public init(
        issuer: String? = nil,
        audience: String? = nil,
        leeway: TimeInterval = 60,
        requireExpiry: Bool = true,
        allowedAlgorithms: Set<SigningAlgorithm> = Set(SigningAlgorithm.allCases)
    ) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.requireExpiry = requireExpiry
        self.allowedAlgorithms = allowedAlgorithms
    }

    /// Checks times, issuer and audience of already authenticated claims.
    func check(_ claims: RegisteredClaims, now: Date) throws(TokenError) {
        let now = now.timeIntervalSince1970
        if let exp = claims.exp {
            guard now <= exp + leeway else { throw .expired }
        } else if requireExpiry {
            throw .missingClaim("exp")
        }
        if let nbf = claims.nbf, now + leeway < nbf { throw .notYetValid }
        if let iat = claims.iat, iat > now + leeway { throw .notYetValid }
        if let issuer {
            guard let iss = claims.iss else { throw .missingClaim("iss") }
            guard iss == issuer else { throw .wrongIssuer }
        }
        if let audience {
            guard let aud = claims.aud else { throw .missingClaim("aud") }
            guard aud.contains(audience) else { throw .wrongAudience }
        }
    }
}
