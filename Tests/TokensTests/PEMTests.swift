import Foundation
import Testing
@testable import Tokens

@Suite("PEM private keys")
struct PEMTests {
    /// Writes `key` as PKCS#8 into `folder` and returns the file path.
    private func write(_ key: SigningKey, in folder: URL) throws -> String {
        let file = folder.appendingPathComponent("key.pem")
        try key.pkcs8PEM().write(to: file, atomically: true, encoding: .utf8)
        return file.path
    }

    /// The reason `SigningKey(pem:)` gives for rejecting `pem`, or nil if it loads.
    private func rejection(_ pem: String) -> String? {
        do {
            _ = try SigningKey(pem: pem)
            return nil
        } catch .invalidKey(let reason) {
            return reason
        } catch {
            return "unexpected \(error)"
        }
    }

    @Test("PKCS#8 round trip keeps the kid", arguments: SigningAlgorithm.allCases)
    func pkcs8(algorithm: SigningAlgorithm) throws {
        let key = try Fixtures.key(algorithm)
        let pem = try key.pkcs8PEM()
        #expect(pem.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        let loaded = try SigningKey(pem: pem)
        #expect(loaded.kid == key.kid)
        #expect(loaded.algorithm == algorithm)
    }

    @Test("SEC1 and PKCS#1 (traditional) PEMs load", arguments: SigningAlgorithm.allCases)
    func traditional(algorithm: SigningAlgorithm) throws {
        let key = try Fixtures.key(algorithm)
        let pem = try withTemporaryFolder { folder in
            try openssl(["pkey", "-in", try write(key, in: folder), "-traditional"])
        }
        #expect(pem.hasPrefix(algorithm == .es256 ? "-----BEGIN EC PRIVATE KEY-----" : "-----BEGIN RSA PRIVATE KEY-----"))
        let loaded = try SigningKey(pem: pem)
        #expect(loaded.kid == key.kid)
        #expect(try loaded.pkcs8PEM() == key.pkcs8PEM())
    }

    @Test("`openssl ecparam -genkey` output (EC PARAMETERS block first) loads")
    func ecparamOutput() throws {
        let pem = try openssl(["ecparam", "-name", "prime256v1", "-genkey"])
        #expect(pem.contains("EC PARAMETERS"))
        #expect(try SigningKey(pem: pem).algorithm == .es256)
    }

    @Test("public keys, encrypted keys and garbage are rejected")
    func rejected() throws {
        let key = try Fixtures.es256.get()
        let (publicPEM, encrypted, encryptedTraditional) = try withTemporaryFolder { folder in
            let file = try write(key, in: folder)
            return (
                try openssl(["pkey", "-in", file, "-pubout"]),
                try openssl(["pkey", "-in", file, "-aes256", "-passout", "pass:secret"]),
                try openssl(["pkey", "-in", file, "-traditional", "-aes256", "-passout", "pass:secret"])
            )
        }
        #expect(rejection(publicPEM) == "not a PEM private key (found: PUBLIC KEY)")
        #expect(rejection(encrypted) == "encrypted private keys are not supported")
        #expect(rejection(encryptedTraditional) == "encrypted private keys are not supported")
        #expect(rejection("") == "not a PEM private key (found: no PEM block)")
        #expect(rejection("-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n")?.hasPrefix("cannot parse") == true)
    }

    @Test("other curves, short RSA and other key types are rejected")
    func weakOrForeignKeys() throws {
        let pems = try withTemporaryFolder { _ in
            [
                try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-384"]),
                try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:1024"]),
                try openssl(["genpkey", "-algorithm", "ed25519"]),
            ]
        }
        #expect(rejection(pems[0]) == "EC curve secp384r1 is not P-256")
        #expect(rejection(pems[1]) == "RSA key of 1024 bits; 2048 to 16384 bits are supported")
        #expect(rejection(pems[2]) == "key type is neither EC P-256 nor RSA")
    }

    @Test("descriptions never include private key material")
    func redactedDescription() throws {
        let key = try Fixtures.es256.get()
        var dumped = ""
        dump(key, to: &dumped)
        for text in [String(describing: key), String(reflecting: key), dumped] {
            #expect(text.contains(key.kid))
            #expect(!text.contains("PRIVATE"))
            #expect(!text.contains("privatePEM"))
        }
    }
}
