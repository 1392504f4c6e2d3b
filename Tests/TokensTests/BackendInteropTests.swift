import Foundation
import Testing
@testable import Tokens

/// The parsed-key fast path and libjwt must agree on every token: each signs what the
/// other verifies, for both algorithms.
@Suite("Parsed-key and libjwt signatures interoperate")
struct BackendInteropTests {
    static let pairs: [(SigningAlgorithm, SignatureBackend, SignatureBackend)] = SigningAlgorithm.allCases.flatMap { algorithm in
        SignatureBackend.allCases.flatMap { signer in SignatureBackend.allCases.map { (algorithm, signer, $0) } }
    }

    @Test("a token signed by one backend verifies on the other", arguments: pairs)
    func signedByOneVerifiedByOther(algorithm: SigningAlgorithm, signer: SignatureBackend, verifier: SignatureBackend) throws {
        let key = try Fixtures.key(algorithm)
        let claims = TestClaims()
        let token = try JWTSigner(key: key, backend: signer).sign(claims)
        let verified = try JWTVerifier(keys: [key.publicKey], policy: Fixtures.policy, backend: verifier).verify(token, now: Fixtures.now)
        #expect(verified.algorithm == algorithm)
        #expect(verified.kid == key.kid)
        #expect(try verified.decode(TestClaims.self) == claims)
    }

    @Test("both backends write the same header", arguments: SigningAlgorithm.allCases)
    func sameHeader(algorithm: SigningAlgorithm) throws {
        let key = try Fixtures.key(algorithm)
        let fast = Compact.parts(try JWTSigner(key: key, backend: .parsedKey).sign(TestClaims()))
        let libjwt = Compact.parts(try JWTSigner(key: key, backend: .libjwt).sign(TestClaims()))
        #expect(fast[0] == libjwt[0])
        #expect(fast[1] == libjwt[1])
    }

    @Test("another key's signature fails on both backends", arguments: SignatureBackend.allCases)
    func otherKey(backend: SignatureBackend) throws {
        let ours = try Fixtures.es256.get()
        let theirs = try Fixtures.es256Other.get()
        let signedByThem = Compact.parts(try JWTSigner(key: theirs, backend: backend).sign(TestClaims()))
        let header = #"{"alg":"ES256","kid":"\#(ours.kid)","typ":"JWT"}"#
        let forged = "\(Crypto.base64URLEncode(header.utf8)).\(signedByThem[1]).\(signedByThem[2])"
        #expect(throws: TokenError.invalidSignature) {
            try JWTVerifier(keys: [ours.publicKey], policy: Fixtures.policy, backend: backend).verify(forged, now: Fixtures.now)
        }
    }

    @Test("the fast path refuses a DER ECDSA signature and a short RSA one")
    func wrongSignatureForm() throws {
        for algorithm in SigningAlgorithm.allCases {
            let key = try Fixtures.key(algorithm)
            let parts = Compact.parts(try JWTSigner(key: key).sign(TestClaims()))
            let raw = try #require(Crypto.base64URLDecode(parts[2]))
            let wrongForm = algorithm == .es256 ? ECDSASignature.der(fromRaw: raw) : Array(raw.dropFirst())
            let token = "\(parts[0]).\(parts[1]).\(Crypto.base64URLEncode(wrongForm))"
            #expect(throws: TokenError.invalidSignature) { try Fixtures.verifier([key]).verify(token, now: Fixtures.now) }
        }
    }

    @Test("a header that repeats a member other than alg is malformed")
    func repeatedKid() throws {
        let key = try Fixtures.es256.get()
        let parts = Compact.parts(try JWTSigner(key: key).sign(TestClaims()))
        let header = #"{"alg":"ES256","kid":"\#(key.kid)","kid":"\#(key.kid)"}"#
        let token = "\(Crypto.base64URLEncode(header.utf8)).\(parts[1]).\(parts[2])"
        #expect(throws: TokenError.malformed(#"header repeats "kid""#)) { try Fixtures.verifier([key]).verify(token, now: Fixtures.now) }
    }
}

@Suite("ECDSA signature forms")
struct ECDSASignatureTests {
    @Test("raw r‖s survives DER and back, with high bits and leading zeros")
    func roundTrip() throws {
        let samples: [[UInt8]] = [
            [UInt8](repeating: 0xFF, count: 64),
            [UInt8](repeating: 0, count: 31) + [1] + [0x80] + [UInt8](repeating: 7, count: 31),
            (0..<64).map { UInt8($0) },
        ]
        for raw in samples {
            let der = ECDSASignature.der(fromRaw: raw)
            #expect(der[0] == 0x30 && Int(der[1]) == der.count - 2)
            #expect(ECDSASignature.raw(fromDER: der) == raw)
        }
        // A high bit needs a zero byte in front, so the INTEGER stays positive.
        #expect(Array(ECDSASignature.der(fromRaw: [UInt8](repeating: 0xFF, count: 64)).prefix(5)) == [0x30, 0x46, 0x02, 0x21, 0x00])
    }

    @Test("malformed DER gives nil")
    func malformed() {
        let good = ECDSASignature.der(fromRaw: (0..<64).map { UInt8($0) })
        #expect(ECDSASignature.raw(fromDER: []) == nil)
        #expect(ECDSASignature.raw(fromDER: Array(good.dropLast())) == nil)
        #expect(ECDSASignature.raw(fromDER: good + [0]) == nil)
        var notInteger = good
        notInteger[2] = 0x04
        #expect(ECDSASignature.raw(fromDER: notInteger) == nil)
        // An INTEGER wider than 32 bytes cannot be a P-256 component.
        let wide: [UInt8] = [0x30, 0x26, 0x02, 0x21, 0x01] + [UInt8](repeating: 1, count: 32) + [0x02, 0x01, 0x01]
        #expect(ECDSASignature.raw(fromDER: wide) == nil)
    }
}
