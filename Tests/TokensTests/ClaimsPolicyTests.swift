import Foundation
import Testing
@testable import Tokens

@Suite("Claim checks")
struct ClaimsPolicyTests {
    private let nowSeconds = Int(Fixtures.now.timeIntervalSince1970)

    /// Signs `claims` with the ES256 key and verifies them under `policy`.
    private func verify(_ claims: TestClaims, policy: JWTVerificationPolicy = Fixtures.policy) throws -> VerifiedToken {
        let key = try Fixtures.es256.get()
        let token = try JWTSigner(key: key).sign(claims)
        return try Fixtures.verifier([key], policy: policy).verify(token, now: Fixtures.now)
    }

    @Test("expired beyond the leeway → expired")
    func expired() throws {
        var claims = TestClaims()
        claims.exp = nowSeconds - 61
        #expect(throws: TokenError.expired) { try verify(claims) }
    }

    @Test("expired within the leeway passes", arguments: [0, 30, 60])
    func expiredWithinLeeway(secondsAgo: Int) throws {
        var claims = TestClaims()
        claims.exp = nowSeconds - secondsAgo
        #expect(try verify(claims).claims.exp == Double(nowSeconds - secondsAgo))
    }

    @Test("a zero leeway is strict")
    func zeroLeeway() throws {
        var claims = TestClaims()
        claims.exp = nowSeconds - 1
        let policy = JWTVerificationPolicy(issuer: Fixtures.issuer, audience: Fixtures.audience, leeway: 0)
        #expect(throws: TokenError.expired) { try verify(claims, policy: policy) }
    }

    @Test("nbf in the future beyond the leeway → notYetValid; within it passes")
    func notBefore() throws {
        var claims = TestClaims()
        claims.nbf = nowSeconds + 61
        #expect(throws: TokenError.notYetValid) { try verify(claims) }
        claims.nbf = nowSeconds + 60
        #expect(try verify(claims).claims.nbf == Double(nowSeconds + 60))
    }

    @Test("iat in the future beyond the leeway → notYetValid")
    func issuedInFuture() throws {
        var claims = TestClaims()
        claims.iat = nowSeconds + 3600
        #expect(throws: TokenError.notYetValid) { try verify(claims) }
    }

    @Test("missing exp → missingClaim unless expiry is optional")
    func missingExpiry() throws {
        var claims = TestClaims()
        claims.exp = nil
        #expect(throws: TokenError.missingClaim("exp")) { try verify(claims) }
        let relaxed = JWTVerificationPolicy(issuer: Fixtures.issuer, audience: Fixtures.audience, requireExpiry: false)
        #expect(try verify(claims, policy: relaxed).claims.exp == nil)
    }

    @Test("wrong issuer → wrongIssuer; absent issuer → missingClaim")
    func issuer() throws {
        var claims = TestClaims()
        claims.iss = "https://evil.example"
        #expect(throws: TokenError.wrongIssuer) { try verify(claims) }
        claims.iss = Fixtures.issuer + "/"
        #expect(throws: TokenError.wrongIssuer) { try verify(claims) }
        claims.iss = nil
        #expect(throws: TokenError.missingClaim("iss")) { try verify(claims) }
    }

    @Test("wrong audience → wrongAudience; absent audience → missingClaim")
    func audience() throws {
        var claims = TestClaims()
        claims.aud = "client-2"
        #expect(throws: TokenError.wrongAudience) { try verify(claims) }
        claims.aud = nil
        #expect(throws: TokenError.missingClaim("aud")) { try verify(claims) }
    }

    @Test("without issuer or audience in the policy, neither is checked")
    func unconstrainedPolicy() throws {
        var claims = TestClaims()
        claims.iss = nil
        claims.aud = "anyone"
        #expect(try verify(claims, policy: JWTVerificationPolicy()).claims.aud == ["anyone"])
    }

    @Test("a claim of the wrong JSON type → malformed")
    func wrongClaimType() throws {
        struct BadClaims: Encodable { var exp = "tomorrow" }
        let key = try Fixtures.es256.get()
        let token = try JWTSigner(key: key).sign(BadClaims())
        #expect(throws: TokenError.self) { try Fixtures.verifier([key]).verify(token, now: Fixtures.now) }
        do {
            _ = try Fixtures.verifier([key]).verify(token, now: Fixtures.now)
        } catch {
            guard case .malformed = error else {
                Issue.record("expected malformed, got \(error)")
                return
            }
        }
    }
}
