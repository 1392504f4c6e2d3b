import Testing
@testable import Fieldpass
@testable import FieldpassDomain
@testable import FieldpassStorage

@Suite("Email addresses")
struct EmailAddressTests {
    @Test(arguments: ["alice@example.com", "Alice.Smith+field@Sub.Example.COM", "a_b-c@ex-ample.io"])
    func validAddressesAreLowerCased(text: String) throws {
        let email = try #require(EmailAddress(text))
        #expect(email.value == text.lowercased())
        #expect(email.domain == String(text.lowercased().split(separator: "@")[1]))
    }

    @Test(arguments: [
        "", "not-an-email", "a@", "@b.com", "a b@example.com", "a@@example.com", "a@example", ".a@example.com",
        "a..b@example.com", "a@-example.com", "a@exa_mple.com", "a@example.com\n", "a\u{0}@example.com",
        String(repeating: "a", count: 65) + "@example.com",
        // Letters that lower-case to ASCII: the Kelvin sign would make Kim's address.
        "\u{212A}im@example.com", "kim@\u{212A}.example.com", "\u{0130}van@example.com", "anna@exampl\u{0130}.com",
    ])
    func invalidAddressesAreRejected(text: String) {
        #expect(EmailAddress(text) == nil)
    }
}
