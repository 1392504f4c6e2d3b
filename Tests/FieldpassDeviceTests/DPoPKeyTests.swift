import Crypto
import FieldpassDevice
import Foundation
import Testing
import Tokens

/// The device's DPoP key, its file and its proofs, each checked by something other than the
/// library: RFC test vectors, the server's own proof parser (OpenSSL), and swift-crypto's
/// verification of the signature.
@Suite struct DPoPKeyTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("fieldpass-dpop-\(UUID().uuidString)")

    @Test func thumbprintsMatchTheRFCsVectors() throws {
        // RFC 7638 §3.1.
        let rsa = [
            "kty": "RSA", "e": "AQAB", "alg": "RS256", "kid": "2011-04-29",
            "n":
                "0vx7agoebGcQSuuPiLJXZptN9nndrQmbXEps2aiAFbWhM78LhWx4cbbfAAtVT86zwu1RK7aPFFxuhDR1L6tSoc_BJECPebWKRXjBZCiFV4n3oknjhMstn64tZ_2W-5JsGY4Hc5n9yBXArwl93lqt7_RN5w6Cf0h4QyQ5v-65YGjQR0_FDW2QvzqY368QQMicAtaSqzs8KJZgnYb9c7d0zgdAZHzu6qMQvRL5hajrn1n91CbOpbISD08qNLyrdkt-bFTWhAI4vMQFh6WeZu0fM4lFd2NcRwr3XPksINHaQ-G_xBniIqbw0Ls1jF44-csFCur-kEgU8awapJzKnqDKgw",
        ]
        #expect(try JWKThumbprint.sha256(of: rsa) == "NzbLsXh8uDCcd-6MNwXF4W_7noWXFZAfHkxZsRGC9Xs")
        // RFC 9449 §6.1: the P-256 key of its examples and the `jkt` they show.
        let ec = [
            "kty": "EC", "crv": "P-256", "x": "l8tFrhx-34tV3hRICRDY9zCkDlpBhF42UQUfWVAWBFs",
            "y": "9VE4jf_Ok_o64zbTTlcuNJajHmt6v9TDVrU0CdvGRDA",
        ]
        #expect(try JWKThumbprint.sha256(of: ec) == "0ZcOCORZNYy-DWpqq30jZyJGHTN0d2HglBV3uiguA4I")
        #expect(throws: DPoPKeyError.unsupportedJWK("EC key without y")) { try JWKThumbprint.sha256(of: ec.filter { $0.key != "y" }) }
    }

    @Test func aSoftwareKeysJWKIsItsPublicKeyAndNothingMore() throws {
        let key = SoftwareDPoPKey()
        #expect(key.algorithm == "ES256")
        #expect(Set(key.publicJWK.keys) == ["kty", "crv", "x", "y"])
        // The server's JWK parser and thumbprint, on OpenSSL, agree with the library's.
        let jwk = try JSONDecoder().decode(JWK.self, from: JSONSerialization.data(withJSONObject: key.publicJWK))
        #expect(try jwk.thumbprint() == key.thumbprint)
        // A dumped or printed key shows no private part.
        let pem = key.pemRepresentation
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(try SoftwareDPoPKey(pemRepresentation: pem).thumbprint == key.thumbprint)
        var dumped = ""
        dump(key, to: &dumped)
        let body = pem.split(separator: "\n").dropFirst().first.map(String.init) ?? pem
        let thumbprint = try key.thumbprint
        #expect(!dumped.contains(body) && !"\(key)".contains(body) && "\(key)".contains(thumbprint))
    }

    @Test func aProofIsWhatTheServerAcceptsAndItsSignatureVerifies() async throws {
        let key = SoftwareDPoPKey()
        let builder = DPoPProofBuilder(key: key)
        let url = try #require(URL(string: "https://fieldpass.example/token?x=1#part"))
        let now = Date(timeIntervalSince1970: 1_900_000_000)
        let proof = try await builder.proof(method: "POST", url: url, accessToken: "the.access.token", nonce: "n-1", now: now)

        // The server's parser: typ, alg, a public jwk only, and the signature, by OpenSSL.
        let parsed = try DPoPProof(verifying: proof)
        let thumbprint = try key.thumbprint
        #expect(parsed.thumbprint == thumbprint)
        #expect(parsed.algorithm == .es256)
        #expect(parsed.htm == "POST" && parsed.htu == "https://fieldpass.example/token")
        #expect(parsed.iat == 1_900_000_000)
        #expect(parsed.nonce == "n-1")
        #expect(parsed.ath == Tokens.Crypto.base64URLEncode(Tokens.Crypto.sha256(Array("the.access.token".utf8))))
        #expect((Tokens.Crypto.base64URLDecode(parsed.jti)?.count ?? 0) >= 12)

        // swift-crypto's verification of the raw r || s signature, with the key from the header.
        let parts = proof.split(separator: ".").map(String.init)
        let headerBytes = try #require(Tokens.Crypto.base64URLDecode(parts[0]))
        let header = try #require(JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any])
        #expect(header["typ"] as? String == "dpop+jwt" && header["alg"] as? String == "ES256")
        let jwk = try #require(header["jwk"] as? [String: String])
        let x = try #require(Tokens.Crypto.base64URLDecode(jwk["x"] ?? ""))
        let y = try #require(Tokens.Crypto.base64URLDecode(jwk["y"] ?? ""))
        let publicKey = try P256.Signing.PublicKey(x963Representation: [0x04] + x + y)
        let signature = try #require(Tokens.Crypto.base64URLDecode(parts[2]))
        #expect(signature.count == 64)
        let valid = publicKey.isValidSignature(
            try P256.Signing.ECDSASignature(rawRepresentation: signature), for: Data((parts[0] + "." + parts[1]).utf8))
        #expect(valid)
        // Another proof of the same request is another proof: a new jti, no ath or nonce unless given.
        let plain = try DPoPProof(verifying: try await builder.proof(method: "POST", url: url, now: now))
        #expect(plain.jti != parsed.jti && plain.ath == nil && plain.nonce == nil)
    }

    @Test func theKeyFileIsMadeOnceOnlyItsOwnerCanReadItAndGivesTheSameKey() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("dpop-key.pem").path
        let made = try await FileDPoPKeyStore(path: path).loadOrCreate()
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try await FileDPoPKeyStore(path: path).loadOrCreate().thumbprint == made.thumbprint)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["dpop-key.pem"])
    }

    @Test func manyFirstLoadsAtOnceAgreeOnOneKey() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = FileDPoPKeyStore(path: folder.appendingPathComponent("dpop-key.pem").path)
        let thumbprints = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<8 { group.addTask { try await store.loadOrCreate().thumbprint } }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(thumbprints.count == 1)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["dpop-key.pem"])
    }

    @Test func aKeyFileOthersCanReadOrThatHoldsNoKeyIsRefused() async throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("dpop-key.pem").path
        _ = try await FileDPoPKeyStore(path: path).loadOrCreate()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        await #expect(throws: FieldpassClientError.unsafeTokenFile(path: path, problem: .openToOthers)) {
            try await FileDPoPKeyStore(path: path).loadOrCreate()
        }
        try FileManager.default.removeItem(atPath: path)
        #expect(FileManager.default.createFile(atPath: path, contents: Data("not a key".utf8), attributes: [.posixPermissions: 0o600]))
        await #expect(throws: DPoPKeyError.unreadableKeyFile(path: path)) { try await FileDPoPKeyStore(path: path).loadOrCreate() }
        // Refused, not replaced: the file is as it was.
        #expect(FileManager.default.contents(atPath: path) == Data("not a key".utf8))
    }
}
