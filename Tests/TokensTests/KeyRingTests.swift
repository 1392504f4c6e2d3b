import Foundation
import Testing
@testable import Tokens

@Suite("Key rings")
struct KeyRingTests {
    /// Writes `key` to `folder/name` with the given modification time.
    private func place(_ key: SigningKey, in folder: URL, name: String, modified: Date) throws {
        let file = folder.appendingPathComponent(name)
        try key.pkcs8PEM().write(to: file, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: modified], ofItemAtPath: file.path)
    }

    /// The ring of `folder` with no publish delay: the newest file signs.
    private func ring(in folder: URL) throws -> KeyRing {
        KeySchedule(files: try KeyFile.readAll(in: folder), publishDelay: 0).ring(at: Date())
    }

    @Test("load signs with the newest file and publishes every key")
    func newestSigns() throws {
        let old = try Fixtures.rs256.get()
        let new = try Fixtures.es256.get()
        try withTemporaryFolder { folder in
            // The newer file gets the alphabetically smaller name so only the time can decide.
            try place(old, in: folder, name: "b-old.pem", modified: Date(timeIntervalSinceNow: -3600))
            try place(new, in: folder, name: "a-new.pem", modified: Date())
            try Data("not a key".utf8).write(to: folder.appendingPathComponent("README.txt"))
            let loaded = try ring(in: folder)
            #expect(loaded.signingKey.kid == new.kid)
            #expect(loaded.jwks.keys.map(\.kid) == [new.kid, old.kid])
            #expect(loaded.verificationKey(kid: old.kid)?.algorithm == .rs256)
            #expect(loaded.verificationKey(kid: "nope") == nil)
            let oldToken = try JWTSigner(key: old).sign(TestClaims())
            #expect(try loaded.verifier(policy: Fixtures.policy).verify(oldToken, now: Fixtures.now).kid == old.kid)
            let newToken = try loaded.signer.sign(TestClaims())
            #expect(try loaded.verifier(policy: Fixtures.policy).verify(newToken, now: Fixtures.now).kid == new.kid)
        }
    }

    @Test("equal modification times fall back to the later file name")
    func nameBreaksTies() throws {
        let first = try Fixtures.es256.get()
        let second = try Fixtures.es256Other.get()
        let moment = Date(timeIntervalSince1970: 1_700_000_000)
        try withTemporaryFolder { folder in
            try place(first, in: folder, name: "20240101T000000-a.pem", modified: moment)
            try place(second, in: folder, name: "20240101T000000-b.pem", modified: moment)
            #expect(try ring(in: folder).signingKey.kid == second.kid)
        }
    }

    @Test("published JWKs hold only public members")
    func publicOnly() throws {
        let ring = KeyRing(signingKey: try Fixtures.es256.get(), others: [try Fixtures.rs256.get(), try Fixtures.es256.get()])
        #expect(ring.verificationKeys.count == 2)
        let json = String(decoding: try JSONEncoder().encode(ring.jwks), as: UTF8.self)
        #expect(!json.contains("\"d\""))
        #expect(ring.jwks.keys.allSatisfy { $0.use == "sig" && $0.alg != nil && $0.kid != nil })
    }

    @Test("an empty or missing folder → noKeys")
    func noKeys() throws {
        try withTemporaryFolder { folder in
            try Data("x".utf8).write(to: folder.appendingPathComponent("notes.txt"))
            #expect(throws: TokenError.noKeys(folder.path)) { try ring(in: folder) }
            let missing = folder.appendingPathComponent("missing")
            #expect(throws: TokenError.noKeys(missing.path)) { try ring(in: missing) }
        }
    }

    @Test("a bad file is named in the error")
    func badFile() throws {
        try withTemporaryFolder { folder in
            try place(try Fixtures.es256.get(), in: folder, name: "good.pem", modified: Date())
            try Data("garbage".utf8).write(to: folder.appendingPathComponent("bad.pem"))
            #expect(throws: TokenError.invalidKey("bad.pem: not a PEM private key (found: no PEM block)")) {
                try ring(in: folder)
            }
        }
    }

    @Test("generateKey writes a 0600 file named by time and kid in a 0700 folder", arguments: SigningAlgorithm.allCases)
    func generate(algorithm: SigningAlgorithm) throws {
        try withTemporaryFolder { folder in
            let keys = folder.appendingPathComponent("keys/nested")
            let (key, file) = try KeyRing.generateKey(algorithm, in: keys)
            #expect(key.algorithm == algorithm)
            #expect(file.deletingLastPathComponent().path == keys.path)
            let name = file.lastPathComponent
            #expect(name.wholeMatch(of: /\d{8}T\d{6}-.{8}\.pem/) != nil)
            #expect(name.hasSuffix("-\(key.kid.prefix(8)).pem"))
            let fileMode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
            #expect(fileMode == 0o600)
            let folderMode = try FileManager.default.attributesOfItem(atPath: keys.path)[.posixPermissions] as? Int
            #expect(folderMode == 0o700)
            #expect(try ring(in: keys).signingKey.kid == key.kid)
        }
    }
}
