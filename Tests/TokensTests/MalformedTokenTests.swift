import Foundation
import Testing
@testable import Tokens

@Suite("Malformed tokens")
struct MalformedTokenTests {
    /// True when verifying `token` fails with `.malformed`.
    private func isMalformed(_ token: String) throws -> Bool {
        do {
            _ = try Fixtures.verifier([try Fixtures.es256.get()]).verify(token, now: Fixtures.now)
            return false
        } catch {
            if case .malformed = error { return true }
            Issue.record("expected malformed, got \(error)")
            return false
        }
    }

    @Test("wrong number of parts → malformed")
    func partCount() throws {
        let parts = Compact.parts(try JWTSigner(key: Fixtures.es256.get()).sign(TestClaims()))
        #expect(try isMalformed("\(parts[0]).\(parts[1])"))
        #expect(try isMalformed("\(parts[0]).\(parts[1]).\(parts[2]).\(parts[2])"))
        #expect(try isMalformed(""))
        #expect(try isMalformed(".."))
        #expect(try isMalformed("\(parts[0])..\(parts[2])"))
    }

    @Test("non-base64url segments → malformed")
    func notBase64() throws {
        let parts = Compact.parts(try JWTSigner(key: Fixtures.es256.get()).sign(TestClaims()))
        #expect(try isMalformed("e30!.\(parts[1]).\(parts[2])"))
        #expect(try isMalformed("\(parts[0]).\(parts[1])+.\(parts[2])"))
        #expect(try isMalformed("\(parts[0]).\(parts[1]).\(parts[2])/"))
        #expect(try isMalformed("\(parts[0]).\(parts[1])."))  // ES256 with no signature
    }

    @Test("a header that is not a JSON object, or lacks alg → malformed")
    func badHeader() throws {
        let payload = try Compact.json(TestClaims())
        for header in ["not json", "[\"ES256\"]", "\"ES256\"", "{}", #"{"alg":5}"#, #"{"alg":"ES256","kid":7}"#] {
            #expect(try isMalformed(Compact.token(header: header, payload: payload, signature: "c2ln")), "\(header)")
        }
    }

    @Test("critical header extensions → malformed")
    func criticalHeader() throws {
        let header = #"{"alg":"ES256","crit":["b64"],"b64":false}"#
        #expect(try isMalformed(Compact.token(header: header, payload: "{}", signature: "c2ln")))
    }

    @Test("a huge token → malformed before parsing")
    func huge() throws {
        let parts = Compact.parts(try JWTSigner(key: Fixtures.es256.get()).sign(TestClaims()))
        let padding = String(repeating: "A", count: JWTVerifier.maximumTokenLength)
        #expect(try isMalformed("\(parts[0]).\(parts[1])\(padding).\(parts[2])"))
        #expect(try isMalformed(String(repeating: "a", count: 1_000_000)))
    }
}
