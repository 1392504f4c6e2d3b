import Foundation
import Testing
import Tokens

@testable import FieldpassDomain

@Suite("DPoP proofs: each check of RFC 9449 §4.3, broken alone by one proof")
struct DPoPRulesTests {
    static let key = try! SigningKey.generate(.es256)
    static let url = "https://fieldpass.example/token"
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let settings = DPoPSettings()

    /// A proof with `header` and `claims` changed from a good one, signed by `key`.
    static func proof(
        header: (inout [String: Any]) -> Void = { _ in }, claims: (inout [String: Any]) -> Void = { _ in }, key: SigningKey = key,
        signature: ((String) throws -> String)? = nil
    ) throws -> String {
        let jwk = try JSONSerialization.jsonObject(with: JSONEncoder().encode(key.publicKey.jwk)) as! [String: Any]
        var head: [String: Any] = ["typ": "dpop+jwt", "alg": key.algorithm.rawValue, "jwk": jwk]
        header(&head)
        var body: [String: Any] = ["htm": "POST", "htu": url, "iat": now.timeIntervalSince1970, "jti": UUID().uuidString]
        claims(&body)
        func segment(_ object: [String: Any]) throws -> String {
            Crypto.base64URLEncode(try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
        }
        let input = "\(try segment(head)).\(try segment(body))"
        let signed = try signature?(input) ?? Crypto.base64URLEncode(try key.signature(of: input.utf8))
        return "\(input).\(signed)"
    }

    static func check(
        _ proof: String?, accessToken: String? = nil, boundTo: String? = nil, settings: DPoPSettings = settings
    )
        throws(DPoPRefusal) -> DPoPRules.AcceptedProof
    {
        try DPoPRules.check(proof, method: "POST", url: url, accessToken: accessToken, boundTo: boundTo, settings: settings, now: now)
    }

    static func reason(
        _ proof: String?, accessToken: String? = nil, boundTo: String? = nil, settings: DPoPSettings = settings
    )
        -> DPoPRefusal.Reason?
    {
        do {
            _ = try check(proof, accessToken: accessToken, boundTo: boundTo, settings: settings)
            return nil
        } catch { return error.reason }
    }

    @Test func aGoodProofGivesItsKeysThumbprint() throws {
        let accepted = try Self.check(try Self.proof())
        #expect(accepted.thumbprint == (try Self.key.publicKey.jwk.thumbprint()))
        #expect(accepted.rememberUntil == Self.now.addingTimeInterval(65 + 300), "remembered five minutes past its last acceptable moment")
        let rsa = try SigningKey.generate(.rs256)
        #expect(try Self.check(try Self.proof(key: rsa)).thumbprint == (try rsa.publicKey.jwk.thumbprint()))
    }

    @Test func noProofIsMissing() {
        #expect(Self.reason(nil) == .missing)
    }

    @Test func anotherTypIsRefused() throws {
        #expect(Self.reason(try Self.proof(header: { $0["typ"] = "JWT" })) == .malformed)
        #expect(Self.reason(try Self.proof(header: { $0["typ"] = nil })) == .malformed)
    }

    @Test func algNoneAndAMacAreRefused() throws {
        #expect(Self.reason(try Self.proof(header: { $0["alg"] = "none" }, signature: { _ in "" })) == .algorithm)
        let mac = try Self.proof(header: { $0["alg"] = "HS256" }, signature: { _ in Crypto.base64URLEncode(Crypto.sha256("secret".utf8)) })
        #expect(Self.reason(mac) == .algorithm)
        #expect(Self.reason(try Self.proof(header: { $0["alg"] = "RS256" })) == .algorithm)
    }

    @Test func aJWKWithItsPrivatePartIsRefused() throws {
        let withPrivate = try Self.proof(header: { header in
            var jwk = header["jwk"] as! [String: Any]
            jwk["d"] = Crypto.base64URLEncode([UInt8](repeating: 7, count: 32))
            header["jwk"] = jwk
        })
        #expect(Self.reason(withPrivate) == .malformed)
    }

    @Test(arguments: [16_384, 8_192, 4_097])
    func aProofKeyLargerThan4096BitsIsMalformed(bits: Int) throws {
        var modulus = (0..<(bits + 7) / 8).map { _ in UInt8.random(in: 0...255) }
        modulus[0] = bits % 8 == 0 ? modulus[0] | 0x80 : 0x01
        modulus[modulus.count - 1] |= 1
        let huge = try Self.proof(
            header: { header in
                header["alg"] = "RS256"
                header["jwk"] = ["kty": "RSA", "n": Crypto.base64URLEncode(modulus), "e": "AQAB"]
            },
            signature: { _ in Crypto.base64URLEncode((0..<256).map { _ in UInt8.random(in: 0...255) }) })
        #expect(Self.reason(huge) == .malformed)
    }

    @Test func aSignatureByAnotherKeyIsRefused() throws {
        let other = try SigningKey.generate(.es256)
        let forged = try Self.proof(signature: { input in Crypto.base64URLEncode(try other.signature(of: input.utf8)) })
        #expect(Self.reason(forged) == .signature)
        let tampered = try Self.proof()
        let parts = tampered.split(separator: ".")
        let otherClaims = Crypto.base64URLEncode(#"{"htm":"POST","htu":"https://fieldpass.example/token","iat":1900000000,"jti":"x"}"#.utf8)
        #expect(Self.reason("\(parts[0]).\(otherClaims).\(parts[2])") == .signature)
    }

    @Test func anotherMethodIsRefused() throws {
        #expect(Self.reason(try Self.proof(claims: { $0["htm"] = "GET" })) == .target)
        #expect(Self.reason(try Self.proof(claims: { $0["htm"] = "post" })) == .target)
    }

    @Test(arguments: ["https://evil.example/token", "https://fieldpass.example/revoke", "http://fieldpass.example/token", "token"])
    func anotherURLIsRefused(htu: String) throws {
        #expect(Self.reason(try Self.proof(claims: { $0["htu"] = htu })) == .target)
    }

    @Test(arguments: [
        "https://fieldpass.example/token?x=1", "https://fieldpass.example/token#f", "HTTPS://FieldPass.Example:443/token",
        "https://fieldpass.example/a/../token", "https://fieldpass.example/./%74oken",
    ])
    func theSameURLWrittenOtherwiseIsAccepted(htu: String) throws {
        #expect(Self.reason(try Self.proof(claims: { $0["htu"] = htu })) == nil)
    }

    @Test func aProofTooOldOrFromTheFutureIsRefused() throws {
        #expect(Self.reason(try Self.proof(claims: { $0["iat"] = Self.now.timeIntervalSince1970 - 66 })) == .time)
        #expect(Self.reason(try Self.proof(claims: { $0["iat"] = Self.now.timeIntervalSince1970 - 64 })) == nil)
        #expect(Self.reason(try Self.proof(claims: { $0["iat"] = Self.now.timeIntervalSince1970 + 6 })) == .time)
        #expect(Self.reason(try Self.proof(claims: { $0["iat"] = Self.now.timeIntervalSince1970 + 4 })) == nil)
        #expect(Self.reason(try Self.proof(claims: { $0["iat"] = "yesterday" })) == .malformed)
    }

    @Test func theAccessTokensHashMustBeTheTokens() throws {
        let token = "an.access.token"
        let ath = Crypto.base64URLEncode(Crypto.sha256(token.utf8))
        #expect(Self.reason(try Self.proof(claims: { $0["ath"] = ath }), accessToken: token) == nil)
        #expect(Self.reason(try Self.proof(claims: { $0["ath"] = ath }), accessToken: "another.access.token") == .tokenHash)
        #expect(Self.reason(try Self.proof(), accessToken: token) == .tokenHash)
    }

    @Test func aBoundTokenNeedsItsOwnKey() throws {
        let other = try SigningKey.generate(.es256)
        #expect(Self.reason(try Self.proof(key: other), boundTo: try Self.key.publicKey.jwk.thumbprint()) == .wrongKey)
        #expect(Self.reason(try Self.proof(), boundTo: try Self.key.publicKey.jwk.thumbprint()) == nil)
    }

    @Test func aProofIsRememberedByItsKeyAndJti() throws {
        let proof = try Self.proof(claims: { $0["jti"] = "one" })
        #expect(try Self.check(proof).replayKey == (try Self.check(proof).replayKey))
        #expect(try Self.check(proof).replayKey != (try Self.check(try Self.proof(claims: { $0["jti"] = "two" }))).replayKey)
        let other = try SigningKey.generate(.es256)
        #expect(try Self.check(proof).replayKey != (try Self.check(try Self.proof(claims: { $0["jti"] = "one" }, key: other))).replayKey)
    }

    @Test func withNoncesOnAProofNeedsAFreshOne() throws {
        var settings = Self.settings
        settings.nonce = true
        #expect(Self.reason(try Self.proof(), settings: settings) == .nonce)
        #expect(Self.reason(try Self.proof(claims: { $0["nonce"] = "stale" }), settings: settings) == .nonce)
        let accepted = try DPoPRules.check(
            try Self.proof(claims: { $0["nonce"] = "fresh" }), method: "POST", url: Self.url, settings: settings, now: Self.now,
            nonceIsFresh: { $0 == "fresh" })
        #expect(accepted.thumbprint == (try Self.key.publicKey.jwk.thumbprint()))
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", String(repeating: "x", count: 9000)])
    func whatIsNotOneJWSIsMalformed(proof: String) {
        #expect(Self.reason(proof) == .malformed)
    }

    /// A device's key is parsed once; what a proof says beside the key's own members, and its
    /// signature, are still checked on every proof.
    @Test func aHeldKeyServesEveryProofOfItsDeviceAndEachProofIsStillChecked() throws {
        let keys = ProofKeyCache(capacity: 2)
        func reason(_ proof: String) -> DPoPRefusal.Reason? {
            do {
                _ = try DPoPRules.check(proof, method: "POST", url: Self.url, settings: Self.settings, now: Self.now, keys: keys)
                return nil
            } catch { return error.reason }
        }
        #expect(reason(try Self.proof()) == nil)
        #expect(reason(try Self.proof()) == nil)
        #expect(keys.count == 1)
        #expect(
            reason(try Self.proof(header: { $0["jwk"] = (($0["jwk"] as! [String: Any]).merging(["alg": "RS256"]) { $1 }) })) == .malformed)
        #expect(
            reason(try Self.proof(header: { $0["jwk"] = (($0["jwk"] as! [String: Any]).merging(["use": "enc"]) { $1 }) })) == .malformed)
        #expect(
            reason(try Self.proof(signature: { _ in Crypto.base64URLEncode(try Self.key.signature(of: Array("other".utf8))) }))
                == .signature)
        for _ in 0..<3 { #expect(reason(try Self.proof(key: try SigningKey.generate(.es256))) == nil) }
        #expect(keys.count <= 2, "no more keys are held than the capacity")
    }
}
