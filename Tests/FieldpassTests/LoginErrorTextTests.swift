import Testing
@testable import Fieldpass

@Suite("Login error texts")
struct LoginErrorTextTests {
    @Test func anIdPsDescriptionIsCutTo200PrintableCharacters() {
        let text = LoginErrorText.description(String(repeating: "é\u{0301}\u{0007}\n", count: 500))
        #expect(text.unicodeScalars.count == 200)
        #expect(!text.unicodeScalars.contains { $0 == "\u{0007}" || $0 == "\n" })
    }
}
