import Foundation
import Testing
@testable import Tokens

/// Tokens signed by the OpenSSL command line, not by libjwt, must verify too.
@Suite("Interoperability with independently signed tokens")
struct InteropTests {
    /// Signs `header.payload` with `openssl dgst -sha256 -sign` and returns the compact token.
    private func externallySigned(key: SigningKey, header: String, claims: TestClaims) throws -> String {
        try withTemporaryFolder { folder in
            let input = "\(Crypto.base64URLEncode(header.utf8)).\(Crypto.base64URLEncode(try Compact.json(claims).utf8))"
            let keyFile = folder.appendingPathComponent("key.pem")
            let inputFile = folder.appendingPathComponent("input")
            let signatureFile = folder.appendingPathComponent("signature")
            try key.pkcs8PEM().write(to: keyFile, atomically: true, encoding: .utf8)
            try Data(input.utf8).write(to: inputFile)
            try openssl(["dgst", "-sha256", "-sign", keyFile.path, "-out", signatureFile.path, inputFile.path])
            var signature = [UInt8](try Data(contentsOf: signatureFile))
            if key.algorithm == .es256 { signature = try rawECDSA(der: signature) }
            return "\(input).\(Crypto.base64URLEncode(signature))"
        }
    }

    /// Converts a DER ECDSA-Sig-Value (SEQUENCE of two INTEGERs) to JOSE's 64-byte R||S.
    private func rawECDSA(der: [UInt8]) throws -> [UInt8] {
        // P-256 signatures are under 128 bytes, so every length is in short form.
        try #require(der.count > 8 && der[0] == 0x30 && Int(der[1]) == der.count - 2)
        var index = 2
        var raw: [UInt8] = []
        for _ in 0..<2 {
            try #require(der[index] == 0x02)
            let length = Int(der[index + 1])
            let value = der[(index + 2)..<(index + 2 + length)].drop { $0 == 0 }
            try #require(value.count <= 32)
            raw += [UInt8](repeating: 0, count: 32 - value.count) + value
            index += 2 + length
        }
        return raw
    }

    @Test("OpenSSL-signed token with kid verifies", arguments: SigningAlgorithm.allCases)
    func withKid(algorithm: SigningAlgorithm) throws {
        let key = try Fixtures.key(algorithm)
        let header = #"{"alg":"\#(algorithm.rawValue)","kid":"\#(key.kid)"}"#
        let token = try externallySigned(key: key, header: header, claims: TestClaims())
        let verified = try Fixtures.verifier([key]).verify(token, now: Fixtures.now)
        #expect(verified.claims.sub == "user-1")
        #expect(verified.kid == key.kid)
    }

    @Test("a token without kid uses the only key of its algorithm")
    func withoutKid() throws {
        let key = try Fixtures.es256.get()
        let token = try externallySigned(key: key, header: #"{"alg":"ES256","typ":"JWT"}"#, claims: TestClaims())
        let verified = try Fixtures.verifier([key, try Fixtures.rs256.get()]).verify(token, now: Fixtures.now)
        #expect(verified.kid == nil)
        #expect(throws: TokenError.unknownKey("")) {
            try Fixtures.verifier([key, try Fixtures.es256Other.get()]).verify(token, now: Fixtures.now)
        }
    }
}
