import Foundation
import Testing
@testable import Fieldpass
@testable import FieldpassDomain

@Suite("Form encoding")
struct FormEncodingTests {
    @Test func unreservedCharactersStayAndEveryOtherByteIsEscaped() {
        #expect(FormEncoding.escape("AZaz09-._~") == "AZaz09-._~")
        #expect(FormEncoding.escape("a b&c=d+e/f?g#h%") == "a%20b%26c%3Dd%2Be%2Ff%3Fg%23h%25")
        #expect(FormEncoding.escape("é€") == "%C3%A9%E2%82%AC")
        #expect(
            FormEncoding.encode([("login_hint", "a+b@example.com"), ("scope", "openid email")])
                == "login_hint=a%2Bb%40example.com&scope=openid%20email")
    }

    @Test func decodingReadsFormsAsBrowsersSendThem() {
        #expect(
            FormEncoding.decode("q=Bob+Builder&x=a%2Bb&empty=&bare&q=second&bad=%zz") == [
                "q": "Bob Builder", "x": "a+b", "empty": "", "bare": "", "bad": "%zz",
            ])
        #expect(FormEncoding.decode("").isEmpty)
        let fields = [("q", "a+b c&d"), ("role", "é")]
        #expect(FormEncoding.decode(FormEncoding.encode(fields)) == ["q": "a+b c&d", "role": "é"])
    }

    @Test func escapingAgreesWithFoundation() throws {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        let sample = String((0x20..<0x7F).map { Character(UnicodeScalar($0)) }) + "äø中🙂"
        #expect(FormEncoding.escape(sample) == sample.addingPercentEncoding(withAllowedCharacters: unreserved))
    }
}
