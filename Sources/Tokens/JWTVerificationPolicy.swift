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
    /// When set, the header's `typ` must be it, compared without regard to case (RFC 8725
    /// section 3.11): a token made for one purpose is not taken for another.
    public var type: String?
    /// When false, `exp`, `nbf` and `iat` are left to the caller, who judges them against
    /// another moment than now.
    public var checksTimes: Bool

    /// Creates a policy; the defaults require expiry, allow 60 s skew and both algorithms.
    public init(
        issuer: String? = nil,
        audience: String? = nil,
        leeway: TimeInterval = 60,
        requireExpiry: Bool = true,
        allowedAlgorithms: Set<SigningAlgorithm> = Set(SigningAlgorithm.allCases),
        type: String? = nil,
        checksTimes: Bool = true
    ) {
        self.issuer = issuer
        self.audience = audience
        self.leeway = leeway
        self.requireExpiry = requireExpiry
        self.allowedAlgorithms = allowedAlgorithms
        self.type = type
        self.checksTimes = checksTimes
    }

    /// Checks times, issuer and audience of already authenticated claims.
    func check(_ claims: RegisteredClaims, now: Date) throws(TokenError) {
        let now = now.timeIntervalSince1970
        if checksTimes { try checkTimes(claims, now: now) }
        if let issuer {
            guard let iss = claims.iss else { throw .missingClaim("iss") }
            guard iss == issuer else { throw .wrongIssuer }
        }
        if let audience {
            guard let aud = claims.aud else { throw .missingClaim("aud") }
            guard aud.contains(audience) else { throw .wrongAudience }
        }
    }

    private func checkTimes(_ claims: RegisteredClaims, now: Double) throws(TokenError) {
        if let exp = claims.exp {
            guard now <= exp + leeway else { throw .expired }
        } else if requireExpiry {
            throw .missingClaim("exp")
        }
        if let nbf = claims.nbf, now + leeway < nbf { throw .notYetValid }
        if let iat = claims.iat, iat > now + leeway { throw .notYetValid }
    }
}
