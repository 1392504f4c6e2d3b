import Foundation
import Testing
@testable import Tokens

@Suite("Signing and verifying")
struct SignVerifyTests {
    @Test("round trip returns the claims and the key's kid", arguments: SigningAlgorithm.allCases)
    func roundTrip(algorithm: SigningAlgorithm) throws {
        let key = try Fixtures.key(algorithm)
        let claims = TestClaims()
        let token = try JWTSigner(key: key).sign(claims)
        let verified = try Fixtures.verifier([key]).verify(token, now: Fixtures.now)
        #expect(verified.kid == key.kid)
        #expect(verified.algorithm == algorithm)
        #expect(verified.claims.iss == Fixtures.issuer)
        #expect(verified.claims.sub == "user-1")
        #expect(verified.claims.aud == [Fixtures.audience])
        #expect(verified.claims.exp == Double(claims.exp ?? 0))
        #expect(verified.claims.jti == "jti-1")
        #expect(try verified.decode(TestClaims.self) == claims)
    }

    @Test("header is {alg, typ JWT, kid} and the signature has the JOSE size", arguments: SigningAlgorithm.allCases)
    func headerLayout(algorithm: SigningAlgorithm) throws {
        let key = try Fixtures.key(algorithm)
        let parts = Compact.parts(try JWTSigner(key: key).sign(TestClaims()))
        try #require(parts.count == 3)
        let header = try Compact.object(parts[0])
        #expect(header["alg"] as? String == algorithm.rawValue)
        #expect(header["typ"] as? String == "JWT")
        #expect(header["kid"] as? String == key.kid)
        #expect(Set(header.keys) == ["alg", "typ", "kid"])
        let payload = try Compact.object(parts[1])
        #expect(payload["email"] as? String == "a@example.com")
        // ES256 must be raw R||S (RFC 7518 section 3.4), not DER; RS256 is the modulus size.
        let signature = try #require(Crypto.base64URLDecode(parts[2]))
        #expect(signature.count == (algorithm == .es256 ? 64 : 256))
    }

    @Test("a token signed by another key with an unknown kid → unknownKey")
    func otherKeyUnknownKid() throws {
        let token = try JWTSigner(key: Fixtures.es256Other.get()).sign(TestClaims())
        let verifier = Fixtures.verifier([try Fixtures.es256.get()])
        #expect(throws: TokenError.unknownKey(try Fixtures.es256Other.get().kid)) {
            try verifier.verify(token, now: Fixtures.now)
        }
    }

    @Test("our kid on another key's signature → invalidSignature")
    func otherKeySameKid() throws {
        let ours = try Fixtures.es256.get()
        let theirs = Compact.parts(try JWTSigner(key: Fixtures.es256Other.get()).sign(TestClaims()))
        let header = #"{"alg":"ES256","typ":"JWT","kid":"\#(ours.kid)"}"#
        let forged = "\(Crypto.base64URLEncode(header.utf8)).\(theirs[1]).\(theirs[2])"
        #expect(throws: TokenError.invalidSignature) {
            try Fixtures.verifier([ours]).verify(forged, now: Fixtures.now)
        }
    }

    @Test("a changed payload → invalidSignature", arguments: SigningAlgorithm.allCases)
    func tamperedPayload(algorithm: SigningAlgorithm) throws {
        let key = try Fixtures.key(algorithm)
        let parts = Compact.parts(try JWTSigner(key: key).sign(TestClaims()))
        var claims = TestClaims()
        claims.sub = "admin"
        let tampered = "\(parts[0]).\(Crypto.base64URLEncode(try Compact.json(claims).utf8)).\(parts[2])"
        #expect(throws: TokenError.invalidSignature) {
            try Fixtures.verifier([key]).verify(tampered, now: Fixtures.now)
        }
    }

    @Test("a flipped signature bit → invalidSignature")
    func tamperedSignature() throws {
        let key = try Fixtures.es256.get()
        let parts = Compact.parts(try JWTSigner(key: key).sign(TestClaims()))
        var signature = try #require(Crypto.base64URLDecode(parts[2]))
        signature[10] ^= 0x01
        let tampered = "\(parts[0]).\(parts[1]).\(Crypto.base64URLEncode(signature))"
        #expect(throws: TokenError.invalidSignature) {
            try Fixtures.verifier([key]).verify(tampered, now: Fixtures.now)
        }
    }

    @Test("claims that are not a JSON object are refused")
    func nonObjectClaims() throws {
        let signer = JWTSigner(key: try Fixtures.es256.get())
        #expect(throws: TokenError.malformed("claims must encode to a JSON object")) { try signer.sign(["a", "b"]) }
    }

    @Test("aud may be an array; dates decode as seconds")
    func audienceArrayAndDates() throws {
        struct ArrayClaims: Codable {
            var aud: [String]
            var exp: Date
            var iss: String
        }
        let key = try Fixtures.rs256.get()
        let expiry = Date(timeIntervalSince1970: Fixtures.now.timeIntervalSince1970 + 60)
        let token = try JWTSigner(key: key).sign(ArrayClaims(aud: ["x", Fixtures.audience], exp: expiry, iss: Fixtures.issuer))
        let verified = try Fixtures.verifier([key]).verify(token, now: Fixtures.now)
        #expect(verified.claims.aud == ["x", Fixtures.audience])
        #expect(verified.claims.exp == expiry.timeIntervalSince1970)
        #expect(try verified.decode(ArrayClaims.self).exp == expiry)
        #expect(throws: TokenError.self) { try verified.decode([String].self) }
    }
}
