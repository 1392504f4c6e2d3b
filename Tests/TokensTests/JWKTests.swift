import Foundation
import Testing
@testable import Tokens

@Suite("JWKs")
struct JWKTests {
    /// RFC 7638 section 3.1's example RSA key.
    private let rfc7638Modulus =
        "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3"
        + "oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZ"
        + "Hzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kE"
        + "gU8awapJzKnqDKgw"

    /// The error `body` throws, or nil.
    private func error(_ body: () throws(TokenError) -> VerificationKey) -> TokenError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test("RFC 7638 example thumbprint")
    func rfc7638Thumbprint() throws {
        let expected = "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs"
        let jwk = JWK(kty: "RSA", alg: "RS256", n: rfc7638Modulus, e: "AQAB")
        #expect(try jwk.thumbprint() == expected)
        let key = try VerificationKey(jwk: jwk)
        #expect(key.kid == expected)
        #expect(key.algorithm == .rs256)
        #expect(key.jwk.n == rfc7638Modulus)
        #expect(try VerificationKey(jwk: JWK(kty: "RSA", kid: "2011-04-29", n: rfc7638Modulus, e: "AQAB")).kid == "2011-04-29")
    }

    @Test("public JWK → VerificationKey verifies the signing key's tokens", arguments: SigningAlgorithm.allCases)
    func roundTrip(algorithm: SigningAlgorithm) throws {
        let signingKey = try Fixtures.key(algorithm)
        let published = signingKey.publicKey.jwk
        #expect(published.kid == signingKey.kid)
        #expect(published.use == "sig")
        #expect(published.alg == algorithm.rawValue)
        let decoded = try JSONDecoder().decode(JWK.self, from: JSONEncoder().encode(published))
        let key = try VerificationKey(jwk: decoded)
        #expect(key.kid == signingKey.kid)
        #expect(key.jwk == published)
        let token = try JWTSigner(key: signingKey).sign(TestClaims())
        #expect(try JWTVerifier(keys: [key], policy: Fixtures.policy).verify(token, now: Fixtures.now).kid == key.kid)
        var anonymous = decoded
        anonymous.kid = nil
        #expect(try VerificationKey(jwk: anonymous).kid == signingKey.kid)
    }

    @Test("EC JWK carries fixed-width coordinates; the JSON omits absent members")
    func ecShape() throws {
        let jwk = try Fixtures.es256.get().publicKey.jwk
        #expect(jwk.kty == "EC" && jwk.crv == "P-256")
        #expect(Crypto.base64URLDecode(jwk.x ?? "")?.count == 32)
        #expect(Crypto.base64URLDecode(jwk.y ?? "")?.count == 32)
        let json = try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(jwk)) as? [String: String])
        #expect(Set(json.keys) == ["kty", "kid", "use", "alg", "crv", "x", "y"])
        let set = try JSONDecoder().decode(JWKSet.self, from: Data(#"{"keys":[{"kty":"oct","k":"c2VjcmV0"}]}"#.utf8))
        #expect(set.keys == [JWK(kty: "oct")])
    }

    @Test("a modulus with a leading zero byte gets the canonical thumbprint")
    func leadingZeroModulus() throws {
        let jwk = try Fixtures.rs256.get().publicKey.jwk
        let padded = [0] + (Crypto.base64URLDecode(jwk.n ?? "") ?? [])
        let key = try VerificationKey(jwk: JWK(kty: "RSA", n: Crypto.base64URLEncode(padded), e: jwk.e))
        #expect(key.kid == jwk.kid)
    }

    @Test("symmetric and unknown key types → unsupportedKey")
    func unsupportedTypes() {
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: JWK(kty: "oct")) } == .unsupportedKey("kty oct"))
        #expect(
            error { () throws(TokenError) in try VerificationKey(jwk: JWK(kty: "OKP", crv: "Ed25519", x: "AA")) }
                == .unsupportedKey("kty OKP"))
    }

    @Test("other curves, algorithms and uses → unsupportedKey")
    func unsupportedParameters() throws {
        var jwk = try Fixtures.es256.get().publicKey.jwk
        jwk.crv = "P-384"
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: jwk) } == .unsupportedKey("EC curve P-384"))
        jwk.crv = "P-256"
        jwk.alg = "RS256"
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: jwk) } == .unsupportedKey("alg RS256 on a EC key"))
        jwk.alg = nil
        jwk.use = "enc"
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: jwk) } == .unsupportedKey("key use \"enc\""))
    }

    @Test("an EC point off the curve is rejected")
    func pointNotOnCurve() throws {
        var jwk = try Fixtures.es256.get().publicKey.jwk
        var y = try #require(Crypto.base64URLDecode(jwk.y ?? ""))
        y[31] ^= 0x01
        jwk.y = Crypto.base64URLEncode(y)
        let failure = error { () throws(TokenError) in try VerificationKey(jwk: jwk) }
        switch failure {
        case .invalidKey, .unsupportedKey: break
        default: Issue.record("expected invalidKey or unsupportedKey, got \(String(describing: failure))")
        }
    }

    @Test("missing or undecodable members → invalidKey")
    func badMembers() throws {
        var jwk = try Fixtures.es256.get().publicKey.jwk
        jwk.x = nil
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: jwk) } == .invalidKey("EC JWK lacks \"x\""))
        jwk.x = "not base64!"
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: jwk) } == .invalidKey("JWK member \"x\" is not base64url"))
        jwk.x = "AAAA"
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: jwk) } == .invalidKey("EC coordinates must be 32 bytes each"))
        #expect(
            error { () throws(TokenError) in try VerificationKey(jwk: JWK(kty: "RSA", e: "AQAB")) } == .invalidKey("RSA JWK lacks \"n\""))
    }

    @Test("an RSA modulus under 2048 bits → invalidKey")
    func shortModulus() throws {
        let modulus = try withTemporaryFolder { folder in
            let file = folder.appendingPathComponent("rsa1024.pem").path
            try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024", "-out", file])
            return try openssl(["rsa", "-in", file, "-noout", "-modulus"])
        }
        let hex = Array(modulus.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("Modulus=".count))
        let bytes = stride(from: 0, to: hex.count, by: 2).compactMap { UInt8(String(hex[$0..<$0 + 2]), radix: 16) }
        #expect(bytes.count == 128)
        let jwk = JWK(kty: "RSA", n: Crypto.base64URLEncode(bytes), e: "AQAB")
        let failure = error { () throws(TokenError) in try VerificationKey(jwk: jwk) }
        guard case .invalidKey = failure else {
            Issue.record("expected invalidKey, got \(String(describing: failure))")
            return
        }
    }

    /// An odd modulus of exactly `bits` bits with no key behind it: what a stranger sends.
    private static func randomModulus(bits: Int) -> [UInt8] {
        var bytes = (0..<(bits + 7) / 8).map { _ in UInt8.random(in: 0...255) }
        let topBit = (bits - 1) % 8
        bytes[0] = bytes[0] & UInt8((1 << (topBit + 1)) - 1) | UInt8(1 << topBit)
        bytes[bytes.count - 1] |= 1
        return bytes
    }

    @Test(
        "an RSA key outside 2048 to 4096 bits, with e other than 65537, or with an even modulus → invalidKey",
        arguments: [
            (16_384, [0x01, 0x00, 0x01], "RSA key of 16384 bits; 2048 to 4096 bits are accepted"),
            (8_192, [0x01, 0x00, 0x01], "RSA key of 8192 bits; 2048 to 4096 bits are accepted"),
            (4_097, [0x01, 0x00, 0x01], "RSA key of 4097 bits; 2048 to 4096 bits are accepted"),
            (2_047, [0x01, 0x00, 0x01], "RSA key of 2047 bits; 2048 to 4096 bits are accepted"),
            (2_048, [0x03], "RSA exponent is not 65537"),
            (2_048, [0x01, 0x00, 0x00, 0x01], "RSA exponent is not 65537"),
        ] as [(Int, [UInt8], String)])
    func rsaBounds(bits: Int, exponent: [UInt8], refusal: String) {
        let jwk = JWK(kty: "RSA", n: Crypto.base64URLEncode(Self.randomModulus(bits: bits)), e: Crypto.base64URLEncode(exponent))
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: jwk) } == .invalidKey(refusal))
        var even = Self.randomModulus(bits: 2_048)
        even[even.count - 1] &= 0xFE
        let evenJWK = JWK(kty: "RSA", n: Crypto.base64URLEncode(even), e: "AQAB")
        #expect(error { () throws(TokenError) in try VerificationKey(jwk: evenJWK) } == .invalidKey("RSA modulus is even"))
    }

    @Test("an RSA key of 4096 bits with e = 65537 is taken, with no primality test of its modulus")
    func rsaUpperBound() throws {
        let modulus = Self.randomModulus(bits: 4_096)
        let key = try VerificationKey(jwk: JWK(kty: "RSA", n: Crypto.base64URLEncode(modulus), e: "AQAB"))
        #expect(key.algorithm == .rs256)
        #expect(Crypto.base64URLDecode(key.jwk.n ?? "") == modulus)
    }
}
