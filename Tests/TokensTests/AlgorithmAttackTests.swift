import Foundation
import Testing
@testable import Tokens

@Suite("Algorithm confusion is rejected")
struct AlgorithmAttackTests {
    private let payload: String

    init() throws {
        payload = try Compact.json(TestClaims())
    }

    @Test("alg none with an empty or a bogus signature → algorithmNotAllowed", arguments: ["", "c2lnbmF0dXJl"])
    func algNone(signature: String) throws {
        let verifier = Fixtures.verifier([try Fixtures.es256.get()])
        for header in [#"{"alg":"none"}"#, #"{"alg":"none","kid":"\#(try Fixtures.es256.get().kid)"}"#] {
            let token = Compact.token(header: header, payload: payload, signature: signature)
            #expect(throws: TokenError.algorithmNotAllowed("none")) { try verifier.verify(token, now: Fixtures.now) }
        }
    }

    @Test("HS256 keyed with our public key PEM → algorithmNotAllowed", arguments: SigningAlgorithm.allCases)
    func hmacWithPublicKey(algorithm: SigningAlgorithm) throws {
        let key = try Fixtures.key(algorithm)
        let header = #"{"alg":"HS256","typ":"JWT","kid":"\#(key.kid)"}"#
        let input = "\(Crypto.base64URLEncode(header.utf8)).\(Crypto.base64URLEncode(payload.utf8))"
        let mac = hmacSHA256(key: key.publicKey.publicPEM, message: Array(input.utf8))
        let token = "\(input).\(Crypto.base64URLEncode(mac))"
        #expect(throws: TokenError.algorithmNotAllowed("HS256")) {
            try Fixtures.verifier([key]).verify(token, now: Fixtures.now)
        }
    }

    // Foundation keeps the first duplicate member and jansson (inside libjwt) the last, so
    // libjwt really does verify this HMAC; only the post-decode alg check stops it.
    @Test("a duplicate alg member cannot smuggle HS256 past the header check")
    func duplicateAlg() throws {
        let key = try Fixtures.es256.get()
        for header in [
            #"{"alg":"ES256","kid":"\#(key.kid)","alg":"HS256"}"#,
            #"{"alg":"HS256","kid":"\#(key.kid)","alg":"ES256"}"#,
        ] {
            let input = "\(Crypto.base64URLEncode(header.utf8)).\(Crypto.base64URLEncode(payload.utf8))"
            let mac = hmacSHA256(key: key.publicKey.publicPEM, message: Array(input.utf8))
            let token = "\(input).\(Crypto.base64URLEncode(mac))"
            #expect(throws: TokenError.algorithmNotAllowed("HS256")) {
                try Fixtures.verifier([key]).verify(token, now: Fixtures.now)
            }
        }
    }

    @Test("other algorithms → algorithmNotAllowed", arguments: ["HS512", "RS512", "ES384", "PS256", "EdDSA", "es256"])
    func otherAlgorithms(alg: String) throws {
        let token = Compact.token(header: #"{"alg":"\#(alg)"}"#, payload: payload, signature: "c2ln")
        #expect(throws: TokenError.algorithmNotAllowed(alg)) {
            try Fixtures.verifier([try Fixtures.es256.get()]).verify(token, now: Fixtures.now)
        }
    }

    @Test("an algorithm outside the policy → algorithmNotAllowed")
    func policyRestrictsAlgorithms() throws {
        let key = try Fixtures.rs256.get()
        let token = try JWTSigner(key: key).sign(TestClaims())
        let policy = JWTVerificationPolicy(issuer: Fixtures.issuer, audience: Fixtures.audience, allowedAlgorithms: [.es256])
        #expect(throws: TokenError.algorithmNotAllowed("RS256")) {
            try Fixtures.verifier([key], policy: policy).verify(token, now: Fixtures.now)
        }
    }

    @Test("a header alg that differs from the kid's key → algorithmNotAllowed")
    func algorithmKeyMismatch() throws {
        let ec = try Fixtures.es256.get()
        let rsaParts = Compact.parts(try JWTSigner(key: Fixtures.rs256.get()).sign(TestClaims()))
        let header = Crypto.base64URLEncode(#"{"alg":"RS256","kid":"\#(ec.kid)"}"#.utf8)
        let token = "\(header).\(rsaParts[1]).\(rsaParts[2])"
        #expect(throws: TokenError.algorithmNotAllowed("RS256")) {
            try Fixtures.verifier([ec, try Fixtures.rs256.get()]).verify(token, now: Fixtures.now)
        }
    }
}
