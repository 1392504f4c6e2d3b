import Foundation
import Testing

@testable import FieldpassDomain

@Suite("DPoP nonces: derived, so that every instance takes every instance's")
struct DPoPNoncesTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let secret = Array("the signing key's secret".utf8)

    @Test func anotherInstanceWithTheSameSecretsTakesTheNonce() throws {
        let nonce = try DPoPNonces(secrets: [Self.secret]).issue(now: Self.now)
        let other = DPoPNonces(secrets: [Self.secret])
        #expect(other.isFresh(nonce, now: Self.now.addingTimeInterval(10), clockSkew: 5))
        #expect(!DPoPNonces(secrets: [Array("another".utf8)]).isFresh(nonce, now: Self.now, clockSkew: 5))
    }

    @Test func aNonceIsFreshForItsLifetimeAndNotFromTheFuture() throws {
        let nonces = DPoPNonces(secrets: [Self.secret])
        let nonce = try nonces.issue(now: Self.now)
        #expect(nonces.isFresh(nonce, now: Self.now.addingTimeInterval(DPoPNonces.lifetime), clockSkew: 5))
        #expect(!nonces.isFresh(nonce, now: Self.now.addingTimeInterval(DPoPNonces.lifetime + 1), clockSkew: 5))
        #expect(nonces.isFresh(nonce, now: Self.now.addingTimeInterval(-5), clockSkew: 5))
        #expect(!nonces.isFresh(nonce, now: Self.now.addingTimeInterval(-6), clockSkew: 5))
    }

    @Test func aNonceOutlivesAChangeOfKeys() throws {
        let old = try DPoPNonces(secrets: [Self.secret]).issue(now: Self.now)
        let rotated = DPoPNonces(secrets: [Array("the next key".utf8), Self.secret])
        #expect(rotated.isFresh(old, now: Self.now, clockSkew: 5))
        #expect(DPoPNonces(secrets: [Self.secret]).isFresh(try rotated.issue(now: Self.now), now: Self.now, clockSkew: 5) == false)
    }

    @Test(arguments: ["", "not-a-nonce", String(repeating: "A", count: 200), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"])
    func whatWeDidNotMakeIsNotFresh(nonce: String) {
        #expect(!DPoPNonces(secrets: [Self.secret]).isFresh(nonce, now: Self.now, clockSkew: 5))
    }
}
