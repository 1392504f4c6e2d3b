import Foundation
import Testing
@testable import Tokens

@Suite("Crypto helpers")
struct CryptoTests {
    @Test("base64url round-trips every length and never pads")
    func base64URLRoundTrip() {
        for length in 0..<40 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            let encoded = Crypto.base64URLEncode(bytes)
            #expect(!encoded.contains("=") && !encoded.contains("+") && !encoded.contains("/"))
            #expect(Crypto.base64URLDecode(encoded) == bytes)
        }
    }

    @Test("base64url agrees with Foundation's base64 on random input")
    func base64URLMatchesFoundation() throws {
        for length in [1, 2, 3, 31, 32, 33, 64, 255, 256, 1000] {
            let bytes = try Crypto.randomBytes(length)
            let reference = Data(bytes).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            #expect(Crypto.base64URLEncode(bytes) == reference)
            #expect(Crypto.base64URLDecode(reference) == bytes)
        }
    }

    @Test("base64url decoding accepts exact padding and rejects bad input")
    func base64URLDecodeEdges() {
        #expect(Crypto.base64URLDecode("-_8") == [0xFB, 0xFF])
        #expect(Crypto.base64URLDecode("AQAB") == [1, 0, 1])
        #expect(Crypto.base64URLDecode("AQ==") == [1])
        #expect(Crypto.base64URLDecode("AQ") == [1])
        #expect(Crypto.base64URLDecode("") == [])
        #expect(Crypto.base64URLDecode("AQ=") == nil)
        #expect(Crypto.base64URLDecode("+/8") == nil)
        #expect(Crypto.base64URLDecode("A") == nil)
        #expect(Crypto.base64URLDecode("A===") == nil)
        #expect(Crypto.base64URLDecode("====") == nil)
        #expect(Crypto.base64URLDecode("AQ=A") == nil)
        #expect(Crypto.base64URLDecode("a b") == nil)
        #expect(Crypto.base64URLDecode("é") == nil)
    }

    @Test("SHA-256 of \"abc\" matches FIPS 180-2")
    func sha256KnownAnswer() {
        let hex = Crypto.sha256("abc".utf8).map { String(format: "%02x", $0) }.joined()
        #expect(hex == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test("PKCE S256 matches RFC 7636 appendix B")
    func pkceChallenge() {
        let challenge = Crypto.pkceChallenge(verifier: "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk")
        #expect(challenge == "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM")
    }

    @Test("random tokens have the expected length and differ")
    func randomTokens() throws {
        let first = try Crypto.randomToken()
        let second = try Crypto.randomToken()
        #expect(first.count == 43)
        #expect(first != second)
        #expect(Crypto.base64URLDecode(first)?.count == 32)
        #expect(try Crypto.randomBytes(0).isEmpty)
        #expect(try Crypto.randomBytes(17).count == 17)
        #expect(throws: TokenError.self) { try Crypto.randomBytes(-1) }
    }

    @Test("HMAC test helper matches RFC 4231 test case 2")
    func hmacHelper() {
        let mac = hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        let hex = mac.map { String(format: "%02x", $0) }.joined()
        #expect(hex == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }
}
